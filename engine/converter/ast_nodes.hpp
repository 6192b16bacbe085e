// The converter walks Python's own `ast` trees (a function's or a cell's
// source) through pybind11; every visitor dispatches on a node's class name.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace specula::engine::converter
{
    // "Name", "BinOp", "Subscript"...: the node's `ast` class name.
    inline std::string node_type(pybind11::handle node)
    {
        return pybind11::str(node.get_type().attr("__name__"));
    }
} // namespace specula::engine::converter
