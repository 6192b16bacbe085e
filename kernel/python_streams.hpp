#ifndef SPECULA_KERNEL_PYTHON_STREAMS_HPP
#define SPECULA_KERNEL_PYTHON_STREAMS_HPP

#include <string>

#include <pybind11/pybind11.h>

#include "kernel/output_coalescer.hpp"

namespace specula::kernel
{
    namespace py = pybind11;

    // A new reference to a file-like object for sys.stdout / sys.stderr that
    // writes into `output` (borrowed; it must outlive the object) under the
    // stream name `name`. Requires the GIL.
    py::object make_python_stream(output_coalescer& output, const std::string& name);
} // namespace specula::kernel

#endif
