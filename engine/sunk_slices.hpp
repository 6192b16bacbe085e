// Sunk slice stores (engine/README.md, "Results and the write buffer"): a
// slice assignment into a user's array (`u_new[1:-1, 1:-1] = v`, a graph
// input) is converted as SLICE_UPDATE of the whole array, which the graph
// would copy before writing the slice, and the commit would copy back whole.
// Rewritten here, the graph computes only the slice's values (the output is
// `v`), and the commit assigns them to the user's array's slice once
// (`target[key] = v` through NumPy), after every assert passed. Data movement
// only: nothing that NumPy could warn about is held back.
#pragma once

#include "engine/specialisation.hpp"
#include "ir/graph.hpp"

namespace specula::engine
{
    // Rewrites every array_write effect of `spec` whose value is a
    // SLICE_UPDATE of the target's own graph input that nothing else reads
    // into a slice_write effect of the slice's values. `g` is spec's graph,
    // before the clean-up passes and compile. Returns how many it rewrote.
    int sink_slice_updates(ir::graph& g, specialisation& spec);
} // namespace specula::engine
