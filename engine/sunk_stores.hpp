// Sunk stores (engine/README.md, "Results and the write buffer"): which
// in-place updates of user arrays a graph run may write straight into the
// user's array instead of a result array copied at commit. The runner passes
// their arrays as effect targets (backends/deferred_store.hpp); the backend
// holds the defining kernels back and the runner runs them after its last
// check, just before the commit.
#pragma once

#include <Python.h>

#include <vector>

#include "backends/buffer.hpp"
#include "engine/specialisation.hpp"

namespace specula::engine
{
    // Per graph output: the effect (index into spec.effects) that may take it
    // as a sunk store in this call, or -1; `targets` gets the user's array
    // for those outputs (empty when none). Checks everything the runner can
    // know before the run; the backend checks the rest (overlap with the
    // defining kernel's operands) and may still refuse.
    void choose_sunk_stores(const specialisation& spec, const std::vector<PyObject*>& values,
                            std::vector<int>& effect_of_output,
                            std::vector<backends::buffer>& targets);

    // How many places use graph output `o` (the return value, effects'
    // values and print arguments).
    int output_uses(const specialisation& spec, int o);

    // Whether NumPy's error state on this thread ignores every floating-point
    // category (np.seterr(all='ignore') or an errstate block). Cheap: one
    // lookup in the thread's dict.
    bool numpy_ignores_fp_errors();
} // namespace specula::engine
