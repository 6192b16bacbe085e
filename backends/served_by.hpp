#pragma once

// Which nodes of a compiled executable a backend other than the primary one
// serves (normally the reference backend's plain loops): the list that tells
// where a graph loses time, shown by SPECULA_DUMP=backends.

#include "backends/executable.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace specula::backends
{
    struct served_node
    {
        std::string graph; // main or a callee
        ir::node_id node = ir::no_id;
        std::string backend; // who serves it ("reference", ...)
        // "cast float64[64,1] -> int64[64,1]": the op, its operand types, its result types
        std::string what;
    };

    // Every computing node of `exe` (main, its regions and callees) that a
    // backend other than `primary` compiled, in program order per graph.
    std::vector<served_node> nodes_not_served_by(const executable& exe, std::string_view primary);

    // One line per node.
    std::string format(const std::vector<served_node>& nodes);
} // namespace specula::backends
