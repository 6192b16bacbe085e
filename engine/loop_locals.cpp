#include "engine/loop_locals.hpp"

#include <frameobject.h> // PyFrame_LocalsToFast: public, not included by Python.h

namespace specula::engine
{
    bool in_names(PyObject* names, const std::string& name)
    {
        bool found = false;
        for (Py_ssize_t i = 0; names != nullptr && i < PyTuple_GET_SIZE(names) && !found; ++i)
        {
            const char* n = PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, i));
            found = n != nullptr && name == n;
        }
        PyErr_Clear();
        Py_XDECREF(names);
        return found;
    }

    loop_names split_loop_names(PyCodeObject* code, const std::vector<std::string>& names)
    {
        loop_names out;
        for (const std::string& name : names)
        {
            // A captured local (a cell of this frame, or of the enclosing
            // one) is a local too: f_locals holds the cell's contents.
            if (in_names(PyCode_GetVarnames(code), name) ||
                in_names(PyCode_GetCellvars(code), name) ||
                in_names(PyCode_GetFreevars(code), name))
            {
                out.locals.push_back(name);
            }
            else
            {
                out.globals.push_back(name);
            }
        }
        return out;
    }

    loop_locals::loop_locals(PyFrameObject* frame, const std::vector<std::string>& names)
        : p_frame(frame)
    {
        // New reference to f_locals, just filled from the fast locals (cells
        // dereferenced, unbound names absent).
        m_dict = PyFrame_GetLocals(frame);
        if (m_dict == nullptr || !PyDict_Check(m_dict))
        {
            Py_CLEAR(m_dict);
            PyErr_Clear();
            return;
        }
        for (const std::string& name : names)
        {
            PyObject* v = PyDict_GetItemString(m_dict, name.c_str()); // borrowed, no exception
            if (v != nullptr)
            {
                Py_INCREF(v);
                m_kept.keep(v); // the new reference
            }
            m_values.push_back(v);
        }
        // The dict holds every local of the frame: emptied now, so a
        // write-back touches only the names put into it again.
        PyDict_Clear(m_dict);
    }

    loop_locals::~loop_locals()
    {
        if (m_dict != nullptr)
        {
            PyDict_Clear(m_dict);
            Py_DECREF(m_dict);
        }
    }

    bool loop_locals::write_back(PyObject* result, bool& broke)
    {
        if (!PyTuple_CheckExact(result) || PyTuple_GET_SIZE(result) < 2 ||
            !PyTuple_CheckExact(PyTuple_GET_ITEM(result, 1)))
        {
            PyErr_SetString(PyExc_SystemError, "specula: malformed loop iteration result");
            return false;
        }
        broke = PyTuple_GET_ITEM(result, 0) == Py_True;
        PyObject* names = PyTuple_GET_ITEM(result, 1); // borrowed
        Py_ssize_t n = PyTuple_GET_SIZE(names);
        if (PyTuple_GET_SIZE(result) != n + 2)
        {
            PyErr_SetString(PyExc_SystemError, "specula: malformed loop iteration result");
            return false;
        }
        if (n == 0)
        {
            return true;
        }
        for (Py_ssize_t i = 0; i < n; ++i)
        {
            if (PyDict_SetItem(m_dict, PyTuple_GET_ITEM(names, i),
                               PyTuple_GET_ITEM(result, i + 2)) < 0)
            {
                return false;
            }
        }
        // Names absent from the dict are left alone (clear = 0); the frame
        // marks f_locals as matching the fast locals until the next read.
        PyFrame_LocalsToFast(p_frame, 0);
        PyDict_Clear(m_dict);
        return !PyErr_Occurred();
    }
} // namespace specula::engine
