#include "backends/status.hpp"

namespace specula::backends
{
    const char* status_code_name(status_code c)
    {
        switch (c)
        {
        case status_code::ok:
            return "ok";
        case status_code::unimplemented:
            return "unimplemented";
        case status_code::invalid_argument:
            return "invalid argument";
        case status_code::runtime_error:
            return "runtime error";
        case status_code::assert_failed:
            return "assert failed";
        case status_code::out_of_memory:
            return "out of memory";
        case status_code::interrupted:
            return "interrupted";
        case status_code::internal:
            break;
        }
        return "internal error";
    }

    std::string status::to_string() const
    {
        if (m_message.empty())
        {
            return status_code_name(m_code);
        }
        return std::string(status_code_name(m_code)) + ": " + m_message;
    }
} // namespace specula::backends
