// The objects a chunk's iterations made for their effects, out of the
// arrays its LOOP stacked them in (converter/chunk_effects.cpp): row j is
// what iteration j computed, made into the object CPython would have made
// (a Python float, a NumPy scalar of the row's dtype, a new array).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <vector>

#include "engine/specialisation.hpp"

namespace specula::engine
{
    // The object of iteration `j` for `row`: output `row.last` itself at the
    // last iteration when the value stays bound to a name (one object, as in
    // CPython), else a new object from row j of output `row.output`. Throws
    // py::error_already_set (memory only: the stacked array has K rows).
    py::object chunk_row_object(const chunk_row& row, const std::vector<py::object>& outputs,
                                std::int64_t j, bool last);

    // The iterations a chunk ran, whose effects the commit replays: its trip
    // count input, or the trips a `while` loop's chunk reports (an int
    // output, or a 0-d array NumPy allocated for it). Throws
    // std::runtime_error when that output is not an int.
    std::int64_t chunk_trip_count(const specialisation& spec,
                                  const std::vector<py::object>& outputs,
                                  const std::vector<PyObject*>& values);
} // namespace specula::engine
