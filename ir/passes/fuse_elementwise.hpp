// Elementwise fusion grouping: marks maximal groups of connected elementwise nodes of
// one region with the same output shape, so a backend can run each group as one loop.
// A merge is refused when it would make the groups' dependency graph cyclic (a path
// leaving the group and coming back), or when the group's program would hold more
// than 48 values (members plus values read from outside; one program per group).
// Sets node::group; singletons stay -1.
#pragma once

#include "ir/graph.hpp"

namespace specula::ir
{
    // Returns the number of groups (of two or more nodes).
    int fuse_elementwise(graph& g);
    // Values a node reads, including values its regions capture from outside.
    std::vector<value_id> operands_with_captures(const graph& g, node_id n);
} // namespace specula::ir
