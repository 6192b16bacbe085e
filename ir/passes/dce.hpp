// Dead code elimination: removes nodes whose results nothing live needs. Boundary ops,
// OUTPUT and ASSERT (side-effect ops) are roots; a control-flow op whose regions hold a root, or a
// CALL whose callee (transitively) does, is kept.
#pragma once

#include "ir/graph.hpp"

namespace specula::ir
{
    // Returns the number of nodes removed.
    int eliminate_dead_code(graph& g);
} // namespace specula::ir
