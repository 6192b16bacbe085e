// The locals of a function frame that is running a loop (on-stack replacement,
// loop_region.cpp): read before an iteration runs as a graph, and the ones
// the iteration rebound written back after its commit. Public C API only
// (PyFrame_GetLocals / PyFrame_LocalsToFast): the frame's `f_locals` dict is
// the go-between, emptied again after every entry so it keeps no array alive.
#pragma once

#include <Python.h>

#include <string>
#include <vector>

#include "engine/py_ref.hpp"

namespace specula::engine
{
    // Names of a loop's body split by the scope CPython's compiler gave them
    // in `code` (borrowed).
    struct loop_names
    {
        std::vector<std::string> locals;  // fast locals of the function
        std::vector<std::string> globals; // globals and builtins
    };
    loop_names split_loop_names(PyCodeObject* code, const std::vector<std::string>& names);

    // Whether `name` is in the tuple `names` (a new reference, such as
    // PyCode_GetCellvars returns: released here). Leaves no exception set.
    bool in_names(PyObject* names, const std::string& name);

    class loop_locals
    {
    public:
        // Reads `names` from `frame` (borrowed, the running function's). On
        // failure ok() is false and no exception is left set.
        loop_locals(PyFrameObject* frame, const std::vector<std::string>& names);
        ~loop_locals();
        loop_locals(const loop_locals&) = delete;
        loop_locals& operator=(const loop_locals&) = delete;

        bool ok() const { return m_dict != nullptr; }
        // Borrowed values in the order of `names` (null: unbound), alive
        // until this object is destroyed.
        PyObject* const* values() const { return m_values.data(); }
        // Writes back an iteration's result (broke, names, values...) (borrowed
        // `result`); returns whether the iteration took a `break`. False with
        // a Python exception set when the result is malformed.
        bool write_back(PyObject* result, bool& broke);

    private:
        PyFrameObject* p_frame;          // borrowed: the caller's frame
        PyObject* m_dict = nullptr;      // new reference: the frame's f_locals
        std::vector<PyObject*> m_values; // borrowed from m_dict or m_kept
        owned_refs m_kept;               // the values, while m_dict is emptied
    };
} // namespace specula::engine
