// The values a chunk of a loop over sequences binds (loop_sequences.hpp):
// of one kind per name, stacked before the run, and kept out of chunks
// whose graph may write them.
#include "engine/loop_sequences.hpp"

#include <algorithm>
#include <cstring>

#include "engine/converter/converter.hpp"
#include "engine/loop_chunks.hpp"
#include "engine/numpy_api.hpp"

namespace specula::engine
{
    namespace
    {
        bool relaxed_int(PyObject* o)
        {
            if (!PyLong_CheckExact(o))
            {
                return false;
            }
            int overflow = 0;
            const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
            if (v == -1 && PyErr_Occurred())
            {
                PyErr_Clear();
                return false;
            }
            return overflow == 0 && v >= converter::relaxed_int_lo &&
                   v <= converter::relaxed_int_hi;
        }

        sequence_items kind_of(PyObject* o)
        {
            if (PyFloat_CheckExact(o))
            {
                return sequence_items::floats;
            }
            if (relaxed_int(o))
            {
                return sequence_items::ints;
            }
            return loop_sequences::stackable(o, 1) ? sequence_items::arrays : sequence_items::none;
        }

        bool same_array_type(PyObject* a, PyObject* b)
        {
            auto* x = reinterpret_cast<PyArrayObject*>(a);
            auto* y = reinterpret_cast<PyArrayObject*>(b);
            return PyArray_DESCR(x)->type_num == PyArray_DESCR(y)->type_num &&
                   PyArray_NDIM(x) == PyArray_NDIM(y) &&
                   PyArray_CompareLists(PyArray_DIMS(x), PyArray_DIMS(y), PyArray_NDIM(x));
        }

        // [lo, hi) of the bytes an array may touch.
        void byte_range(PyArrayObject* a, std::intptr_t& lo, std::intptr_t& hi)
        {
            lo = reinterpret_cast<std::intptr_t>(PyArray_DATA(a));
            hi = lo + static_cast<std::intptr_t>(PyArray_ITEMSIZE(a));
            for (int i = 0; i < PyArray_NDIM(a); ++i)
            {
                const npy_intp n = PyArray_DIMS(a)[i];
                const npy_intp s = PyArray_STRIDES(a)[i];
                if (n == 0)
                {
                    hi = lo;
                    return;
                }
                (s >= 0 ? hi : lo) += s * (n - 1);
            }
        }

        bool overlap(PyObject* x, PyObject* y)
        {
            std::intptr_t xl = 0, xh = 0, yl = 0, yh = 0;
            byte_range(reinterpret_cast<PyArrayObject*>(x), xl, xh);
            byte_range(reinterpret_cast<PyArrayObject*>(y), yl, yh);
            return xl < yh && yl < xh;
        }

        using stream_kind = loop_stream::kind;

        const loop_stream& stream_of(const loop_cursor& cur, std::size_t name)
        {
            return cur.streams[cur.unpacks ? 0 : name];
        }

        std::size_t names_of(const loop_cursor& cur)
        {
            return cur.unpacks ? cur.names : cur.streams.size();
        }

        bool counted(const loop_stream& s)
        {
            return s.k == stream_kind::count || s.k == stream_kind::range;
        }

        // How many of the `k` ints from a count or range stream's current
        // one on lie in the relaxed int range (they change monotonically).
        std::int64_t ints_in_range(const loop_stream& s, std::int64_t k)
        {
            auto in = [](long long v)
            { return v >= converter::relaxed_int_lo && v <= converter::relaxed_int_hi; };
            if (!in(s.at))
            {
                return 0;
            }
            const long long bound =
                s.step > 0 ? converter::relaxed_int_hi : converter::relaxed_int_lo;
            const long long fits = (bound - s.at) / s.step + 1; // (same sign)
            return std::min<std::int64_t>(k, fits);
        }

        PyObject* stack_scalars(const loop_cursor& cur, std::int64_t k, std::size_t name,
                                sequence_items kind)
        {
            npy_intp dims[1] = {static_cast<npy_intp>(k)};
            const int type = kind == sequence_items::floats ? NPY_FLOAT64 : NPY_INT64;
            PyObject* out = PyArray_SimpleNew(1, dims, type); // new reference
            if (out == nullptr)
            {
                return nullptr;
            }
            auto* a = reinterpret_cast<PyArrayObject*>(out);
            const loop_stream& s = stream_of(cur, name);
            for (std::int64_t j = 0; j < k; ++j)
            {
                if (counted(s))
                {
                    static_cast<std::int64_t*>(PyArray_DATA(a))[j] = s.at + j * s.step;
                    continue;
                }
                // (A list's or tuple's item, or part: borrowed.)
                PyObject* o = loop_sequences::value(cur, name, j).ptr();
                if (kind == sequence_items::floats)
                {
                    static_cast<double*>(PyArray_DATA(a))[j] = PyFloat_AS_DOUBLE(o);
                }
                else
                {
                    static_cast<std::int64_t*>(PyArray_DATA(a))[j] = PyLong_AsLongLong(o);
                }
            }
            return out;
        }

        PyObject* stack_arrays(const loop_cursor& cur, std::int64_t k, std::size_t name)
        {
            const loop_stream& s = stream_of(cur, name);
            if (s.k == stream_kind::rows)
            {
                // The array's own rows (C-contiguous), no copy: the chunk is
                // kept out when the graph may write them (items_alias_inputs).
                return PySequence_GetSlice(s.seq.ptr(), s.at, s.at + k); // new reference
            }
            py::object head = loop_sequences::value(cur, name, 0);
            auto* first = reinterpret_cast<PyArrayObject*>(head.ptr());
            const int nd = PyArray_NDIM(first);
            std::vector<npy_intp> dims(static_cast<size_t>(nd) + 1);
            dims[0] = static_cast<npy_intp>(k);
            std::copy(PyArray_DIMS(first), PyArray_DIMS(first) + nd, dims.begin() + 1);
            PyObject* out = PyArray_SimpleNew(nd + 1, dims.data(),
                                              PyArray_DESCR(first)->type_num); // new reference
            if (out == nullptr)
            {
                return nullptr;
            }
            py::object owned = py::reinterpret_steal<py::object>(out);
            auto* a = reinterpret_cast<PyArrayObject*>(out);
            const npy_intp row = PyArray_STRIDES(a)[0];
            for (std::int64_t j = 0; j < k; ++j)
            {
                // C-contiguous, of the first item's type (uniform()).
                py::object item = loop_sequences::value(cur, name, j);
                auto* x = reinterpret_cast<PyArrayObject*>(item.ptr());
                std::memcpy(static_cast<char*>(PyArray_DATA(a)) + j * row, PyArray_DATA(x),
                            static_cast<size_t>(row));
            }
            return owned.release().ptr();
        }
    } // namespace

    namespace loop_sequences
    {
        bool stackable(PyObject* o, int min_ndim)
        {
            if (!PyArray_CheckExact(o))
            {
                return false;
            }
            auto* a = reinterpret_cast<PyArrayObject*>(o);
            return PyArray_NDIM(a) >= min_ndim && PyArray_ISNOTSWAPPED(a) && PyArray_ISALIGNED(a) &&
                   PyArray_IS_C_CONTIGUOUS(a) &&
                   dtype_of_type_num(PyArray_DESCR(a)->type_num).has_value();
        }

        std::int64_t uniform(const loop_cursor& cur, std::int64_t k,
                             std::vector<sequence_items>& kinds)
        {
            const std::size_t n = names_of(cur);
            kinds.assign(n, sequence_items::none);
            for (std::size_t p = 0; p < n; ++p)
            {
                const loop_stream& s = stream_of(cur, p);
                if (counted(s))
                {
                    kinds[p] = sequence_items::ints;
                    k = std::min(k, ints_in_range(s, k));
                    continue;
                }
                if (s.k == stream_kind::rows)
                {
                    kinds[p] = sequence_items::arrays; // (checked at position())
                    continue;
                }
                py::object first = value(cur, p, 0);
                kinds[p] = first ? kind_of(first.ptr()) : sequence_items::none;
                for (std::int64_t j = 1; j < k && kinds[p] != sequence_items::none; ++j)
                {
                    py::object o = value(cur, p, j);
                    if (!o || kind_of(o.ptr()) != kinds[p] ||
                        (kinds[p] == sequence_items::arrays &&
                         !same_array_type(first.ptr(), o.ptr())))
                    {
                        k = j;
                    }
                }
                if (kinds[p] == sequence_items::none)
                {
                    k = 0;
                }
            }
            return k;
        }

        PyObject* stack(const loop_cursor& cur, std::int64_t k, std::size_t name,
                        sequence_items kind)
        {
            return kind == sequence_items::arrays ? stack_arrays(cur, k, name)
                                                  : stack_scalars(cur, k, name, kind);
        }

        bool items_alias_inputs(const loop_cursor& cur, std::int64_t k,
                                const std::vector<PyObject*>& values,
                                const std::vector<PyObject*>& stacks)
        {
            auto aliases = [&](PyObject* x)
            {
                for (PyObject* v : values)
                {
                    if (v != nullptr && PyArray_Check(v) && overlap(x, v) &&
                        std::find(stacks.begin(), stacks.end(), v) == stacks.end())
                    {
                        return true;
                    }
                }
                return false;
            };
            for (std::size_t p = 0; p < names_of(cur); ++p)
            {
                const loop_stream& s = stream_of(cur, p);
                if (s.k == stream_kind::rows)
                {
                    // The rows the graph reads are the stack itself.
                    if (p < stacks.size() && stacks[p] != nullptr && aliases(stacks[p]))
                    {
                        return true;
                    }
                    continue;
                }
                for (std::int64_t j = 0; j < k && s.k == stream_kind::items; ++j)
                {
                    py::object x = value(cur, p, j);
                    if (x && PyArray_Check(x.ptr()) && aliases(x.ptr()))
                    {
                        return true;
                    }
                }
            }
            return false;
        }

        const char* describe(sequence_items kind)
        {
            switch (kind)
            {
            case sequence_items::floats:
                return "Python floats";
            case sequence_items::ints:
                return "Python ints";
            case sequence_items::arrays:
                return "arrays";
            case sequence_items::none:
                break;
            }
            return "items of other types";
        }
    } // namespace loop_sequences
} // namespace specula::engine
