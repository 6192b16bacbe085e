#include "kernel/error_reply.hpp"

namespace specula::kernel
{
    std::string plain_exception_name(const std::string& name)
    {
        std::string inner = name;
        const std::string prefix = "<class '";
        const std::string suffix = "'>";
        if (inner.size() > prefix.size() + suffix.size() &&
            inner.compare(0, prefix.size(), prefix) == 0 &&
            inner.compare(inner.size() - suffix.size(), suffix.size(), suffix) == 0)
        {
            inner = inner.substr(prefix.size(), inner.size() - prefix.size() - suffix.size());
        }
        // Qualified names keep only the class, as etype.__name__ would.
        auto dot = inner.rfind('.');
        return dot == std::string::npos ? inner : inner.substr(dot + 1);
    }

    nl::json error_reply_content(const cell_error& error)
    {
        nl::json content;
        content["status"] = "error";
        content["ename"] = plain_exception_name(error.ename);
        content["evalue"] = error.evalue;
        content["traceback"] = error.traceback;
        return content;
    }
} // namespace specula::kernel
