// The PEP 523 frame-evaluation hook: the one file that includes CPython
// internals (it needs _PyInterpreterFrame's layout), and no pybind11.
//
// Hot path for cold code: one extra-slot lookup and one decrement. Every path
// ends in one of three named exits: run_default, run_compiled, fail.
#define Py_BUILD_CORE
#include <Python.h>
#include <internal/pycore_frame.h>

#include <chrono>

#include "engine/frame_hook.hpp"

namespace specula::engine::frame_hook
{
    namespace
    {
        constexpr int generator_like_flags =
            CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE;

        // Stored in the extra slot of code that is never compiled, so the
        // classification runs once per code object.
        hook_slot g_never_slot{never_again};

        callbacks g_callbacks{};
        Py_ssize_t g_extra_index = -1;
        bool g_installed = false;
        _PyFrameEvalFunction g_previous = nullptr;
        // The engine's own Python work (getsource, ast, commits) is never
        // profiled or compiled.
        bool g_in_engine = false;

        // Called by CPython when a code object with a slot dies.
        void free_extra(void* extra)
        {
            auto* slot = static_cast<hook_slot*>(extra);
            if (slot != nullptr && slot != &g_never_slot && g_callbacks.release != nullptr)
            {
                g_callbacks.release(slot);
            }
        }

        // Returns a new reference or NULL with an exception set.
        PyObject* run_default(PyThreadState* tstate, _PyInterpreterFrame* frame, int throwflag)
        {
            return _PyEval_EvalFrameDefault(tstate, frame, throwflag);
        }

        hook_slot* slot_of(PyCodeObject* code)
        {
            void* extra = nullptr;
            if (_PyCode_GetExtra(reinterpret_cast<PyObject*>(code), g_extra_index, &extra) < 0)
            {
                PyErr_Clear();
                return &g_never_slot;
            }
            if (extra != nullptr)
            {
                return static_cast<hook_slot*>(extra);
            }
            hook_slot* slot = g_callbacks.classify(code);
            if (slot == nullptr)
            {
                slot = &g_never_slot;
            }
            if (_PyCode_SetExtra(reinterpret_cast<PyObject*>(code), g_extra_index, slot) < 0)
            {
                PyErr_Clear();
            }
            return slot;
        }

        // Borrowed frame; returns a new reference or NULL with an exception set.
        PyObject* specula_eval_frame(PyThreadState* tstate, _PyInterpreterFrame* frame,
                                     int throwflag)
        {
            PyCodeObject* code = frame->f_code;
            if (throwflag != 0 || g_in_engine || frame->owner != FRAME_OWNED_BY_THREAD ||
                (code->co_flags & generator_like_flags) != 0)
            {
                return run_default(tstate, frame, throwflag);
            }
            hook_slot* slot = slot_of(code);
            if (--slot->countdown >= 0)
            {
                return run_default(tstate, frame, throwflag);
            }
            frame_view view{reinterpret_cast<PyObject*>(frame->f_func), frame->f_globals,
                            frame->f_builtins, frame->localsplus, code};
            PyObject* result = nullptr;
            g_in_engine = true;
            frame_exit exit = g_callbacks.enter(slot, view, &result);
            g_in_engine = false;
            switch (exit)
            {
            case frame_exit::run_compiled:
                return result;
            case frame_exit::fail:
                return nullptr;
            case frame_exit::run_default:
                break;
            }
            if (g_callbacks.ran_default == nullptr)
            {
                return run_default(tstate, frame, throwflag);
            }
            // Timed so the engine can compare CPython with its graphs (two
            // clock reads, only on calls the engine already saw).
            auto start = std::chrono::steady_clock::now();
            PyObject* out = run_default(tstate, frame, throwflag);
            g_callbacks.ran_default(
                slot,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            return out;
        }
    } // namespace

    bool install(const callbacks& cb)
    {
        if (g_extra_index < 0)
        {
            g_extra_index = _PyEval_RequestCodeExtraIndex(free_extra);
            if (g_extra_index < 0)
            {
                return false;
            }
        }
        g_callbacks = cb;
        if (!g_installed)
        {
            PyInterpreterState* interp = PyThreadState_Get()->interp;
            g_previous = _PyInterpreterState_GetEvalFrameFunc(interp);
            _PyInterpreterState_SetEvalFrameFunc(interp, specula_eval_frame);
            g_installed = true;
        }
        return true;
    }

    void uninstall()
    {
        if (!g_installed || !Py_IsInitialized())
        {
            return;
        }
        PyInterpreterState* interp = PyThreadState_Get()->interp;
        _PyInterpreterState_SetEvalFrameFunc(interp, g_previous);
        g_installed = false;
    }

    bool installed() { return g_installed; }
} // namespace specula::engine::frame_hook
