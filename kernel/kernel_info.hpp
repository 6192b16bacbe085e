#ifndef SPECULA_KERNEL_KERNEL_INFO_HPP
#define SPECULA_KERNEL_KERNEL_INFO_HPP

#include <string>

#include <nlohmann/json.hpp>

namespace specula::kernel
{
    namespace nl = nlohmann;

    // Content of kernel_info_reply. `python_version` is the running
    // interpreter's (platform.python_version()), not the headers' we were
    // built against.
    nl::json kernel_info_content(const std::string& python_version);
} // namespace specula::kernel

#endif
