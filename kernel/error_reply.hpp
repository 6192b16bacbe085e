#ifndef SPECULA_KERNEL_ERROR_REPLY_HPP
#define SPECULA_KERNEL_ERROR_REPLY_HPP

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace specula::kernel
{
    namespace nl = nlohmann;

    struct cell_error
    {
        std::string ename;
        std::string evalue;
        std::vector<std::string> traceback;
    };

    // The exception's plain class name, as ipykernel reports it:
    // "<class 'ZeroDivisionError'>" and "<class 'pkg.mod.Error'>" become
    // "ZeroDivisionError" and "Error"; a plain name is returned unchanged.
    std::string plain_exception_name(const std::string& name);

    // Content of an execute_reply with status "error".
    nl::json error_reply_content(const cell_error& error);
} // namespace specula::kernel

#endif
