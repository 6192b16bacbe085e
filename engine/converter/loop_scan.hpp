// What a loop's statements bind, shared by the loops converted as IR LOOPs
// (range_loop.cpp, while_loop.cpp, loop_chunk.cpp, loop_carried_names.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include <functional>
#include <set>
#include <string>

namespace specula::engine::converter
{
    namespace py = pybind11;

    // Every node under `node` in its own scope (not in nested functions or
    // comprehensions, whose names are their own).
    void walk_scope(py::handle node, const std::function<void(py::handle)>& visit);

    // Names a statement list binds (assignment targets, augmented
    // assignments, for targets), and how many statements it holds.
    void bound_names(py::handle statements, std::set<std::string>& names, int& size);

    // The names a statement list binds by augmented assignment (`x += ...`)
    // and in no other way.
    std::set<std::string> augmented_only_names(py::handle statements);

    // The first statement of the list that binds `name` (where a refusal
    // about it points), else the first statement (null: an empty list).
    py::handle binding_statement(const py::list& statements, const std::string& name);
} // namespace specula::engine::converter
