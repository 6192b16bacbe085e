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
        // The nodes in post-order, kept only when the graph writes node
        // attributes (the commit sets them on these objects).
        std::vector<py::object> order;
    };

    // An attribute the recursion sets on its node (`node.h = ...`): the
    // graph gives two tables, one row per node in post-order; the commit
    // (tree_commit.hpp) sets it on every node the run wrote it on.
    struct tree_attr_write
    {
        std::string name;
        int values_output = -1; // graph output: (nodes, *shape), the value written
        int tags_output = -1;   // graph output: int64 per node, see tag_* below
        int view_src = -1;      // source `s` whose row `s[i]` a path stores, or -1
        std::int64_t view_rows = 0;
        // Tags: not written on this node, a new array (the row of the
        // values), or a view `s[tag - view_rows]` (tag >= 0), as CPython
        // stored it: `node.h = L[word]` stores a view of L, not a copy.
        static constexpr std::int64_t tag_unwritten = -2;
        static constexpr std::int64_t tag_fresh = -1;
    };

    struct tree_plan
    {
        int root_src = -1;                    // the source of the root node (an argument)
        py::object node_class;                // every node is exactly of this class
        std::vector<std::string> children;    // attributes the recursion follows, in call order
        std::vector<std::string> class_names; // methods the body calls: never in a node's __dict__
        std::vector<tree_table> tables;       // graph inputs, in input order
        std::vector<tree_attr_write> writes;  // attributes set per node, in commit order
        // Children the body reads without a check of its own (hoisted out
        // of the loop by the converter): on every node whose bool table
        // `when_table` holds `when` (any node when -1), the child of table
        // `child_table` must be present, else CPython runs the call (which
        // raises where the body reads it).
        struct child_required
        {
            int child_table = -1;
            int when_table = -1;
            bool when = false;
        };
        std::vector<child_required> required_children;
        // Sources whose objects must not be nodes of this tree: a caller
        // reads an attribute this recursion sets from an earlier one's root.
        std::vector<int> distinct_from;
        // The walk of the call being run (check_guards() fills it, the run
        // reads it; both under the GIL, one call at a time).
        mutable tree_walk last;

        // Hot: walks the tree from `root`. False (with `why` set) when a node
        // breaks an assumption: the call then runs in CPython.
        bool walk(PyObject* root, tree_walk& out, std::string& why,
                  const std::vector<PyObject*>& excluded = {}) const;
        // The index of `t` in `tables`, adding it when new.
        int table_index(tree_table::kind k, const std::string& field);
    };
} // namespace specula::engine
