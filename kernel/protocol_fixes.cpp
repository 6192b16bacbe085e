#include "kernel/protocol_fixes.hpp"

namespace specula::kernel
{
    nl::json input_request_content(nl::json content)
    {
        if (!content.contains("password"))
        {
            content["password"] = content.value("pwd", false);
        }
        return content;
    }
} // namespace specula::kernel
