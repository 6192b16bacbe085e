// Checks a graph's invariants: arity and attributes, types against the type rules,
// dominance (every use sees its definition), region arguments and results of control
// flow, boundary ops, and CALL signatures against the module.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.hpp"

namespace specula::ir
{
    struct diagnostic
    {
        std::string graph_name;
        node_id node = no_id; // no_id for graph-level problems
        std::string op_name;
        std::string message;
        // "@main: node 4 (add): type mismatch ..."
        std::string to_string() const;
    };

    std::vector<diagnostic> verify(const graph& g);
    std::vector<diagnostic> verify(const module& m);
    // All diagnostics joined by newlines; empty when the graph is well formed.
    std::string format(const std::vector<diagnostic>& diags);
} // namespace specula::ir
