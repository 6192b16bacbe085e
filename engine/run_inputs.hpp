// The buffers of one graph run (runner.cpp's first step): the graph's inputs
// borrowed zero-copy from the values the guards resolved, and the result
// arrays NumPy allocates before the run for the outputs whose shape is known
// then. Layouts are kept in the specialisation (run_layouts) and reused while
// the arrays keep their shapes and strides, so a steady run of a graph with
// 160 inputs and 70 outputs makes no layout allocation.
#pragma once

#include <Python.h>

#include <cstdint>
#include <vector>

#include "engine/py_ref.hpp"
#include "engine/specialisation.hpp"

namespace specula::engine
{
    // Python floats, ints and NumPy scalars are read into these; the input
    // buffers point into them, so they must outlive the run.
    struct run_scalars
    {
        std::vector<double> floats;
        std::vector<std::int64_t> ints;
    };

    // `values` come from a successful check_guards().
    void make_inputs(const specialisation& spec, const std::vector<PyObject*>& values,
                     run_scalars& scalars, std::vector<backends::buffer>& inputs);

    // Arrays NumPy owns, made before the run for the outputs whose shape is
    // known then, so the graph writes them in place: the same arrays a copy of
    // the result would give (C order, owndata, base None), without the copy.
    // `arrays[i]` stays null where the output is materialised after the run
    // (Python scalars, unknown shapes, a sunk store's value, which lives in
    // the user's array). On a NumPy error the Python error is cleared and that
    // output is copied after the run as before.
    void make_destinations(const specialisation& spec, const std::vector<backends::buffer>& inputs,
                           const std::vector<backends::buffer>& targets,
                           std::vector<py::object>& arrays,
                           std::vector<backends::buffer>& destinations);
} // namespace specula::engine
