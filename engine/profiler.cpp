#include "engine/profiler.hpp"

#include "engine/numpy_api.hpp"

#include <algorithm>

namespace specula::engine
{
    namespace
    {
        constexpr Py_ssize_t max_observed_items = 256;
    } // namespace

    std::string arg_path(PyCodeObject* code, int i)
    {
        PyObject* names = PyCode_GetVarnames(code); // new reference
        std::string path = "arg" + std::to_string(i);
        if (names != nullptr && i < PyTuple_GET_SIZE(names))
        {
            const char* name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, i));
            if (name != nullptr)
            {
                path = name;
            }
        }
        PyErr_Clear();
        Py_XDECREF(names);
        return path;
    }

    void profile::observe(const std::string& path, PyObject* value)
    {
        if (value == nullptr)
        {
            return;
        }
        observation& o = m_observations[path];
        PyTypeObject* type = Py_TYPE(value);
        std::vector<std::int64_t> dims;
        if (PyArray_Check(value))
        {
            auto* a = reinterpret_cast<PyArrayObject*>(value);
            dims.assign(PyArray_DIMS(a), PyArray_DIMS(a) + PyArray_NDIM(a));
        }
        double fv = PyFloat_CheckExact(value) ? PyFloat_AS_DOUBLE(value) : 0.0;
        long long iv = 0;
        bool is_int = PyLong_CheckExact(value);
        if (is_int)
        {
            int overflow = 0;
            iv = PyLong_AsLongLongAndOverflow(value, &overflow);
            is_int = overflow == 0;
        }
        if (o.count > 0)
        {
            o.type_varies |= o.type != type;
            bool fv_changed = fv != o.float_value || (fv != fv);
            o.value_varies |= PyFloat_CheckExact(value) && fv_changed;
            // A changed int becomes its type (DESIGN.md, relaxation).
            o.value_varies |= is_int && o.is_int && iv != o.int_value;
            // A rank change (or a first value that was not an array) gives
            // no per-axis comparison: the shape itself varies, no dim is
            // relaxed, and the flags are re-sized to the current rank.
            if (dims.size() != o.dim_varies.size())
            {
                o.dim_varies.assign(dims.size(), false);
            }
            else if (dims.size() == o.dims.size())
            {
                for (size_t i = 0; i < dims.size(); ++i)
                {
                    // Size 1 broadcasts differently: never relax through it.
                    if (dims[i] != o.dims[i] && dims[i] != 1 && o.dims[i] != 1)
                    {
                        o.dim_varies[i] = true;
                    }
                }
            }
        }
        else
        {
            o.dim_varies.assign(dims.size(), false);
        }
        // Globals are paths "G[name]" but not items of one container: a
        // changing loop counter must not relax every other global.
        if (o.value_varies && o.is_int && !o.pinned && !path.empty() && path.back() == ']' &&
            path.rfind("G[", 0) != 0)
        {
            m_varying_items.insert(path.substr(0, path.rfind('[')));
        }
        o.type = type;
        o.dims = dims;
        o.float_value = fv;
        o.int_value = iv;
        o.is_int = is_int;
        ++o.count;
    }

    void profile::observe_frame(const frame_hook::frame_view& frame)
    {
        int n = frame.code->co_argcount + frame.code->co_kwonlyargcount;
        for (int i = 0; i < n; ++i)
        {
            std::string path = arg_path(frame.code, i);
            PyObject* arg = frame.locals[i];
            observe(path, arg);
            // Items of short lists/tuples of ints, under the converter's item
            // paths ("inputs[3]"), so changing token ids are seen to change.
            if (arg != nullptr && (PyList_CheckExact(arg) || PyTuple_CheckExact(arg)) &&
                Py_SIZE(arg) <= max_observed_items)
            {
                for (Py_ssize_t k = 0; k < Py_SIZE(arg); ++k)
                {
                    PyObject* item = PySequence_Fast_ITEMS(arg)[k]; // borrowed
                    if (PyLong_CheckExact(item))
                    {
                        observe(path + "[" + std::to_string(k) + "]", item);
                    }
                }
            }
        }
    }

    void profile::relax_int(const std::string& path)
    {
        auto it = m_observations.find(path);
        if (it != m_observations.end() && it->second.is_int && !it->second.pinned)
        {
            it->second.value_varies = true;
        }
    }

    bool profile::dim_relaxed(const std::string& path, int axis) const
    {
        auto it = m_observations.find(path);
        return it != m_observations.end() && !it->second.type_varies && !it->second.dims_pinned &&
               axis < static_cast<int>(it->second.dim_varies.size()) &&
               it->second.dim_varies[static_cast<size_t>(axis)];
    }

    bool profile::value_relaxed(const std::string& path) const
    {
        auto it = m_observations.find(path);
        if (it != m_observations.end() && (it->second.type_varies || it->second.pinned))
        {
            return false;
        }
        if (it != m_observations.end() && it->second.value_varies)
        {
            return true;
        }
        return !path.empty() && path.back() == ']' &&
               m_varying_items.count(path.substr(0, path.rfind('['))) > 0;
    }

    bool profile::pin_relaxed()
    {
        bool any = pin_relaxed_ints();
        any = any || !m_varying_items.empty();
        m_varying_items.clear();
        return pin_relaxed_dims() || any;
    }

    bool profile::pin_relaxed_dims()
    {
        bool any = false;
        for (auto& [path, o] : m_observations)
        {
            for (bool varies : o.dim_varies)
            {
                if (varies && !o.dims_pinned)
                {
                    o.dims_pinned = true;
                    any = true;
                }
            }
        }
        return any;
    }

    bool profile::pin_relaxed_ints()
    {
        bool any = false;
        for (auto& [path, o] : m_observations)
        {
            if (o.is_int && o.value_varies && !o.type_varies && !o.pinned)
            {
                o.pinned = true;
                any = true;
            }
        }
        return any;
    }

    void profile::record_branch(const std::string& key, bool taken)
    {
        branch_observation& b = m_branches[key];
        ++(taken ? b.taken : b.not_taken);
    }

    void profile::record_trips(const std::string& key, std::int64_t trips)
    {
        branch_observation& b = m_branches[key];
        b.trips_min = b.entries == 0 ? trips : std::min(b.trips_min, trips);
        b.trips_max = b.entries == 0 ? trips : std::max(b.trips_max, trips);
        ++b.entries;
    }

    void profile::branch_flipped(const std::string& key)
    {
        m_branches[key].flipped = true;
    }

    const branch_observation* profile::branch(const std::string& key) const
    {
        auto it = m_branches.find(key);
        return it == m_branches.end() ? nullptr : &it->second;
    }
} // namespace specula::engine
