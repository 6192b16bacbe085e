// Branch outcomes and loop trip counts of a profiling call, seen through
// CPython's line events while the call runs in CPython (issue 4,
// "Profiling"). Only the few profiling calls are traced; a run under a
// debugger's or the user's trace function records nothing. Tracing never
// changes what the code does: `sys.gettrace()` still returns None.
#pragma once

#include <Python.h>

#include "engine/profiler.hpp"

namespace specula::engine::branch_tracer
{
    // Starts recording the `if`/`while`/`for` statements of `code` and of the
    // functions of the same file it calls, into `prof` (which must outlive the
    // run). False when nothing will be recorded (another trace function is
    // installed, a run is already traced, the source is not available);
    // then end() must not be called. Throws py::error_already_set when the
    // user's interrupt arrives while it reads the source.
    bool begin(PyCodeObject* code, profile& prof);
    // Stops recording (after the CPython run, which may have raised: the
    // pending exception is kept).
    void end();
    // Whether `f` is the tracer's own trace function (a profiling call being
    // traced, not a debugger's).
    bool owns(Py_tracefunc f);
} // namespace specula::engine::branch_tracer
