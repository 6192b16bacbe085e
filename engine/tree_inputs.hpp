// The run-time side of recursion over Python tree objects (JANUS's TreeRNN
// case): before a graph built by converter/recursion.cpp runs, the tree is
// walked from the root along exactly the attributes the converter saw the
// recursion follow, every node is checked (same plain class, attributes read
// from its __dict__ only, no method shadowed by the instance) and numbered in
// post-order, and the node data the body reads are laid out as int64 / bool
// tables: the graph's LOOP runs once per node over them. Trees of any shape
// share one graph; the table length is a symbolic dim.
#pragma once

#include <Python.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

namespace specula::engine
{
    namespace py = pybind11;

    // One table the graph reads, one entry per node in post-order.
    struct tree_table
    {
        enum class kind
        {
            child,     // int64: post-order index of the child in `field`, -1 for None
            int_value, // int64: the int in `field` (0 where it is None)
            is_none,   // bool: `field` is None
        };
        kind k = kind::int_value;
        std::string field;
    };

    // What the walk of one call found: the tables, in the order of
    // `tree_plan::tables`, and the node count.
    struct tree_walk
    {
        std::int64_t nodes = 0;
        std::vector<std::vector<std::int64_t>> ints; // per table (bool tables: 0/1 here)
        std::vector<std::vector<std::uint8_t>> bools;
    };

    struct tree_plan
    {
        int root_src = -1;                    // the source of the root node (an argument)
        py::object node_class;                // every node is exactly of this class
        std::vector<std::string> children;    // attributes the recursion follows, in call order
        std::vector<std::string> class_names; // methods the body calls: never in a node's __dict__
        std::vector<tree_table> tables;       // graph inputs, in input order
        // The walk of the call being run (check_guards() fills it, the run
        // reads it; both under the GIL, one call at a time).
        mutable tree_walk last;

        // Hot: walks the tree from `root`. False (with `why` set) when a node
        // breaks an assumption: the call then runs in CPython.
        bool walk(PyObject* root, tree_walk& out, std::string& why) const;
        // The index of `t` in `tables`, adding it when new.
        int table_index(tree_table::kind k, const std::string& field);
    };
} // namespace specula::engine
