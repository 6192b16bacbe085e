// Graphviz export: one box per node, edges for data flow, fusion groups as clusters,
// asserts drawn red with their exit id, control-flow regions as nested clusters.
#pragma once

#include <string>

#include "ir/graph.hpp"

namespace specula::ir
{
    std::string to_dot(const graph& g);
} // namespace specula::ir
