#ifndef SPECULA_KERNEL_INPUT_REDIRECTION_HPP
#define SPECULA_KERNEL_INPUT_REDIRECTION_HPP

#include <pybind11/pybind11.h>

#include "kernel/output_coalescer.hpp"

namespace specula::kernel
{
    namespace py = pybind11;

    // RAII, for the span of one cell: builtins.input and getpass.getpass ask
    // the frontend over the stdin channel (or raise when the request did not
    // allow stdin). Requires the GIL in constructor and destructor.
    //
    // While waiting for the answer SIGINT is shielded: the wait is a zmq
    // receive, which must not see EINTR. An interrupt sent meanwhile raises
    // KeyboardInterrupt as soon as the answer arrives.
    class input_redirection
    {
    public:
        input_redirection(bool allow_stdin, output_coalescer& output);
        ~input_redirection();

        input_redirection(const input_redirection&) = delete;
        input_redirection& operator=(const input_redirection&) = delete;
        input_redirection(input_redirection&&) = delete;
        input_redirection& operator=(input_redirection&&) = delete;

    private:
        py::object m_saved_input;
        py::object m_saved_getpass;
    };
} // namespace specula::kernel

#endif
