// Small RAII holders for Python references on the hot path, where py::object's
// extra checks are not wanted.
#pragma once

#include <Python.h>

#include <vector>

namespace specula::engine
{
    // Owns new references taken during one call; releases them at scope exit.
    class owned_refs
    {
    public:
        owned_refs() = default;
        owned_refs(const owned_refs&) = delete;
        owned_refs& operator=(const owned_refs&) = delete;
        ~owned_refs()
        {
            for (PyObject* o : m_refs)
            {
                Py_DECREF(o);
            }
        }

        // Takes a new reference (may be null); returns it borrowed.
        PyObject* keep(PyObject* new_ref)
        {
            if (new_ref != nullptr)
            {
                m_refs.push_back(new_ref);
            }
            return new_ref;
        }

    private:
        std::vector<PyObject*> m_refs;
    };
} // namespace specula::engine
