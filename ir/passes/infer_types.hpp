// Shape/dtype inference over a whole graph: re-derives every node's output types from
// the boundary types, e.g. after the engine relaxed an input from (4,8) to (?0,8).
// Loop-carried values whose dims change across iterations become symbolic.
#pragma once

#include "ir/graph.hpp"
#include "ir/status.hpp"

namespace specula::ir
{
    status infer_types(graph& g);
    // Graphs in name order, repeated until CALL result types settle.
    status infer_types(module& m);
} // namespace specula::ir
