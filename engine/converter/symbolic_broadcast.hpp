// A graph input dim that varies between calls (symbolic) must never be
// broadcast against a fixed dim > 1: the IR then takes the fixed size for the
// result and a run where the two differ would compute garbage instead of
// raising NumPy's broadcasting ValueError. Such graphs are refused; the
// region runs in CPython, which raises where NumPy would.
#pragma once

#include <string>

#include "ir/graph.hpp"

namespace specula::engine::converter
{
    // Empty when `g` is fine, else a description of the first offending node.
    std::string symbolic_broadcast_problem(const ir::graph& g);
} // namespace specula::engine::converter
