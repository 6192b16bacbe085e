// An f-string made at commit from the objects a run computed
// (converter/print_format.cpp): CPython's conversions and format() calls.
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

namespace specula::engine
{
    namespace py = pybind11;

    // `parts`: literal strs and (item, conversion, spec) tuples, conversion
    // -1 or one of 's', 'r', 'a' (as ast.FormattedValue has it). Throws
    // py::error_already_set (the converter tried each spec on the type).
    py::object formatted_text(const py::object& parts, const std::vector<py::object>& items);
} // namespace specula::engine
