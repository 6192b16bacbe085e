// The commit of the node attributes a recursion over a tree wrote
// (`node.h = ...` in converter/tree_writes.cpp): after the run passed every
// assert, each node in post-order gets its attributes set, as CPython's
// calls would have left them: a new array per node (the row of the graph's
// table, copied into an array of its own), or a view of the user's array
// where the code stored `L[word]`.
#pragma once

#include <Python.h>
#include <pybind11/pybind11.h>

#include <functional>
#include <vector>

#include "engine/tree_inputs.hpp"

namespace specula::engine
{
    namespace py = pybind11;

    // The effect of one run: takes the nodes of the plan's last walk;
    // `outputs` are the run's graph outputs, `values` its resolved sources.
    // The function returns 0, or -1 with a Python exception set.
    std::function<int()> tree_attr_commit(const tree_plan& plan,
                                          const std::vector<py::object>& outputs,
                                          const std::vector<PyObject*>& values);
} // namespace specula::engine
