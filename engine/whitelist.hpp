// The callables the converter knows, found by identity: NumPy functions and
// builtins are looked up once, so `import numpy as xp` works and a rebound
// name is simply not in the table (and guarded anyway).
#pragma once

#include <pybind11/pybind11.h>

#include <map>
#include <string>

namespace specula::engine
{
    namespace py = pybind11;

    class whitelist
    {
    public:
        // Requires the GIL and an importable numpy.
        void load();
        // "np.exp", "builtins.len", or "" when unknown. `object` is borrowed.
        const std::string& name_of(PyObject* object) const;
        PyObject* numpy_module() const { return m_numpy.ptr(); }
        PyObject* ndarray_type() const { return m_ndarray.ptr(); }

    private:
        py::object m_numpy;
        py::object m_ndarray;
        std::map<PyObject*, std::string> m_names;
        std::map<std::string, py::object> m_keep; // keeps the looked-up objects alive
    };

    // The NumPy function names the converter maps (README table).
    extern const char* const numpy_functions[];
    extern const char* const builtin_functions[];
} // namespace specula::engine
