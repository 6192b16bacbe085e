// When code entered on this thread is CPython's to run, whatever the engine
// holds for it: a trace or profile function must see its events, and a graph
// run with its commit must be as atomic towards other Python threads as the
// bytecodes it stands for.
#pragma once

#include <Python.h>

namespace specula::engine::thread_rules
{
    // A trace or profile function other than the engine's own branch tracer
    // is set on `ts` (sys.settrace, sys.setprofile, threading.settrace in a
    // thread started after it, a debugger, coverage, a line profiler): it must
    // see every call, line and return event of the code, which only CPython
    // makes. No Python runs. Inline: the frame hook asks at every call, and
    // neither function is set on almost every thread.
    bool traced_by_user(const PyThreadState* ts);
    inline bool observed(const PyThreadState* ts)
    {
        return (ts->c_profilefunc != nullptr || ts->c_tracefunc != nullptr) && traced_by_user(ts);
    }

    // Whether this is the main thread. A loop region keeps one cursor per loop
    // (the iterator its chunks move on): only the main thread's loops enter
    // the engine, a loop run by another thread at the same time stays in
    // CPython.
    bool main_thread();

    // Whether a thread of the threading module other than this one is alive,
    // leaving out the kernel's own (IPython's history saver, which touches no
    // user data). A print at commit runs Python's stream code, which lets
    // other threads run (I/O releases the GIL) between the graph's reads and
    // the effects after the print, computed before it: a run with prints is
    // left to CPython while one exists. Runs no user Python code; returns
    // false when the threading module was never imported.
    bool other_threads_alive();
} // namespace specula::engine::thread_rules
