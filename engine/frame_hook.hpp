// The PEP 523 frame hook's interface. The hook itself (frame_hook.cpp) is the
// only code that sees CPython internals; the engine sees a frame_view.
#pragma once

#include <Python.h>

#include "engine/hook_slot.hpp"

namespace specula::engine::frame_hook
{
    // A function frame about to run. All pointers are borrowed for the call.
    struct frame_view
    {
        PyObject* function;      // borrowed: the function object
        PyObject* globals;       // borrowed: the function's globals dict
        PyObject* builtins;      // borrowed: the builtins dict
        PyObject* const* locals; // borrowed: arguments in their canonical slots
        PyCodeObject* code;      // borrowed
    };

    // The three ways a frame ends (as TorchDynamo names them).
    enum class frame_exit
    {
        run_default,  // CPython evaluates the frame as if there were no hook
        run_compiled, // the engine answered; *result is a new reference
        fail,         // genuine error: *result is NULL and a Python exception is set
    };

    struct callbacks
    {
        // Once per code object: the slot that will count its calls, or nullptr
        // for code that must never be compiled (library code, lambdas...).
        hook_slot* (*classify)(PyCodeObject* code);
        // A call whose countdown ran out. `result` receives a new reference on
        // run_compiled.
        frame_exit (*enter)(hook_slot* slot, const frame_view& frame, PyObject** result);
        // The code object holding this slot was freed.
        void (*release)(hook_slot* slot);
        // `enter` answered run_default and CPython took `seconds` (wall
        // clock) to evaluate the frame; the exception state is CPython's, so
        // this must not touch Python. May be null.
        void (*ran_default)(hook_slot* slot, double seconds) = nullptr;
    };

    // While a hook is installed CPython 3.11 stops inlining Python-to-Python
    // calls, which costs every call of every function. So the hook parks
    // (uninstalls itself) after `window` calls of the program's own code (library
    // code is not counted) in which no code the engine still counts, profiles
    // or runs was called, only code that stays in CPython for good; the kernel
    // re-installs it at every cell and a background timer re-installs it
    // every `rearm_ms` to sample again, so code that becomes hot later is still
    // found, within one period. Counts and profiles carry over between windows.
    // window 0: never park.
    struct park_policy
    {
        std::int64_t window = 0;
        int rearm_ms = 50;
    };

    // Requires the GIL. Returns false (with a Python exception set) when the
    // code extra index cannot be had.
    bool install(const callbacks& cb, park_policy policy = {});
    // Removes the hook for good (until the next install), parked or not.
    void uninstall();
    // The engine is at work, on this thread or on another one that let the
    // GIL go meanwhile (Python run by a conversion, a print at commit): code
    // entered now stays in CPython and is not counted.
    bool busy();
    // Marks the engine at work for its lifetime (the frame hook's entries and
    // the loop markers').
    class busy_scope
    {
    public:
        busy_scope();
        ~busy_scope();
        busy_scope(const busy_scope&) = delete;
        busy_scope& operator=(const busy_scope&) = delete;

    private:
        bool m_was;
    };
    // The engine is on: the hook is in CPython or parked.
    bool installed();
    // The hook is in CPython right now (not parked).
    bool active();
    // Re-installs a parked hook now (a new notebook cell may call code that
    // is not hot yet). Requires the GIL.
    void rearm();
} // namespace specula::engine::frame_hook
