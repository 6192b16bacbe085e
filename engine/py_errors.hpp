// Python errors met while the engine runs code that can call back into user
// Python code (a dict lookup comparing a user key with __eq__). An Exception
// there (a KeyError, a TypeError) is the engine's cue to fall back: CPython
// then meets the same error itself, in program order. Anything else is the
// user's: a KeyboardInterrupt raised by the SIGINT handler while that user
// code ran (a signal is handled once), a SystemExit. Swallowing it would lose
// the interrupt; it is kept and raised where the engine was entered.
#pragma once

#include <Python.h>
#include <pybind11/pybind11.h>

namespace specula::engine
{
    // After a failed C-API call: clears an Exception and returns false, or
    // leaves a BaseException that is not an Exception set and returns true.
    // False with nothing set when no error is pending.
    inline bool clear_error_unless_interrupt()
    {
        PyObject* type = PyErr_Occurred(); // borrowed
        if (type == nullptr)
        {
            return false;
        }
        if (!PyErr_GivenExceptionMatches(type, PyExc_Exception))
        {
            return true;
        }
        PyErr_Clear();
        return false;
    }

    // The same, for C++ code that unwinds to where the engine was entered
    // (enter_region, the loop markers' boundary): an Exception is cleared,
    // the user's interrupt is thrown on as py::error_already_set.
    inline void clear_error_or_throw_interrupt()
    {
        if (clear_error_unless_interrupt())
        {
            throw pybind11::error_already_set();
        }
    }

    // Whether an error the engine must raise rather than swallow is pending.
    inline bool interrupt_pending()
    {
        PyObject* type = PyErr_Occurred(); // borrowed
        return type != nullptr && !PyErr_GivenExceptionMatches(type, PyExc_Exception);
    }

    // The pending error was raised in the engine's own Python (a loop's
    // description): its traceback holds the engine's frames, which CPython,
    // raising it in the user's code, would not show. Dropped, so the user's
    // frames are the traceback's only ones once it is raised there.
    inline void drop_engine_traceback()
    {
        PyObject* type = nullptr;
        PyObject* value = nullptr;
        PyObject* traceback = nullptr;
        PyErr_Fetch(&type, &value, &traceback); // new references (each may be null)
        PyErr_NormalizeException(&type, &value, &traceback);
        Py_XDECREF(traceback);
        if (value != nullptr)
        {
            PyException_SetTraceback(value, Py_None); // borrows Py_None
        }
        PyErr_Restore(type, value, nullptr); // steals type and value
    }
} // namespace specula::engine
