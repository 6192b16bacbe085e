// Dead code elimination: removes nodes whose results nothing live needs. Boundary ops,
// OUTPUT and ASSERT (side-effect ops) are roots; a control-flow op whose regions hold a root, or a
// CALL whose callee (transitively) does, is kept.
#pragma once

#include "ir/graph.hpp"

namespace specula::ir
{
    struct dce_options
    {
        // Keep the nodes whose run can be observed without their result: float
        // arithmetic (the IEEE flags NumPy turns into RuntimeWarnings or
        // FloatingPointErrors, np.seterr), integer division (NumPy's
        // divide-by-zero warning) and indexing that fails at run time. Off, a
        // dead node is removed whatever it would have signalled.
        bool keep_signalling = false;
    };

    // Returns the number of nodes removed.
    int eliminate_dead_code(graph& g, const dce_options& options = {});
} // namespace specula::ir
