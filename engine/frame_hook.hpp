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
        PyObject* function;       // borrowed: the function object
        PyObject* globals;        // borrowed: the function's globals dict
        PyObject* builtins;       // borrowed: the builtins dict
        PyObject* const* locals;  // borrowed: arguments in their canonical slots
        PyCodeObject* code;       // borrowed
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

    // Requires the GIL. Returns false (with a Python exception set) when the
    // code extra index cannot be had.
    bool install(const callbacks& cb);
    void uninstall();
    bool installed();
} // namespace specula::engine::frame_hook
