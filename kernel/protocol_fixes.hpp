#ifndef SPECULA_KERNEL_PROTOCOL_FIXES_HPP
#define SPECULA_KERNEL_PROTOCOL_FIXES_HPP

#include <nlohmann/json.hpp>

namespace specula::kernel
{
    namespace nl = nlohmann;

    // xeus 2.4 names the password flag of input_request "pwd"; the protocol
    // (and every frontend) reads "password", so getpass() would echo.
    // Returns the content with "password" set; "pwd" is kept for clients
    // written against xeus.
    nl::json input_request_content(nl::json content);
} // namespace specula::kernel

#endif
