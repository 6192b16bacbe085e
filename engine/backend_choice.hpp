// The one place that picks the backends graphs run on: the CPU backend
// (NumPy's own ufunc loops, NumPy's BLAS calls, pairwise sums), with the
// reference backend serving the nodes the CPU backend leaves unimplemented.
#pragma once

#include <memory>
#include <string>

#include "backends/executable.hpp"
#include "ir/graph.hpp"

namespace specula::engine
{
    // Compiles `g` for the engine. Call with the GIL held (the first call
    // reads NumPy's loop tables). When a node whose result depends on the
    // kernel (transcendental functions, power, matrix products) was not served
    // by a kernel proven bit-identical to NumPy, `refused` names it and the
    // graph must not run (the numerics policy). Marks `g`'s elementwise fusion
    // groups (node::group) first: the CPU backend runs each as one node.
    backends::result<std::unique_ptr<backends::executable>>
    compile_for_engine(ir::graph& g, std::string& refused);
} // namespace specula::engine
