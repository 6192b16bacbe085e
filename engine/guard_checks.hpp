// A compiled region's guards at every call: its sources resolved and their
// guards checked (the hot path, before a run), and on a miss, cold, which
// sources changed and why.
#pragma once

#include <Python.h>

#include <string>
#include <vector>

#include "engine/frame_hook.hpp"
#include "engine/py_ref.hpp"
#include "engine/specialisation.hpp"

namespace specula::engine
{
    struct guard_failure
    {
        int source = -1;     // -1 for cross-source guards or a missing source
        int index = -1;      // the guard that failed, -1 when the source did not resolve
        std::string explain; // filled by explain_failure()
    };

    // guard_failure::index when the guards were not decided: the user's
    // interrupt was raised in user code a source's lookup ran (a dict key's
    // __eq__), and is set for the caller to raise (py_errors.hpp).
    inline constexpr int guards_interrupted = -4;

    // Resolves every source into `values` (borrowed, kept alive by `owned`) and
    // checks the guards. On failure fills `failure` (cheaply) and returns false.
    bool check_guards(const specialisation& spec, const frame_hook::frame_view& frame,
                      std::vector<PyObject*>& values, owned_refs& owned, guard_failure& failure);
    // Cold, after a miss: every source whose own guards fail on this call,
    // not only the first (two shapes that changed together relax together).
    // Sources read through one that failed or did not resolve are skipped.
    // `values` may come with the sources the miss's check_guards resolved
    // (the rest null): those are not resolved again, which would run the
    // user code of a lookup twice. Stops with the user's interrupt set when
    // a lookup raised it.
    std::vector<int> failing_sources(const specialisation& spec,
                                     const frame_hook::frame_view& frame,
                                     std::vector<PyObject*>& values, owned_refs& owned);
    // Cold: the human-readable reason for a failure.
    std::string explain_failure(const specialisation& spec, const guard_failure& failure,
                                const std::vector<PyObject*>& values);
} // namespace specula::engine
