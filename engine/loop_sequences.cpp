#include "engine/loop_sequences.hpp"

#include <cstring>

#include "engine/converter/converter.hpp"
#include "engine/loop_chunks.hpp"
#include "engine/numpy_api.hpp"

namespace specula::engine
{
    namespace
    {
        // A list's size may change between two chunks (the loop's CPython
        // iterations may append to it); a tuple's never does.
        Py_ssize_t size_of(PyObject* seq)
        {
            return PyList_CheckExact(seq) ? PyList_GET_SIZE(seq) : PyTuple_GET_SIZE(seq);
        }

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

        // An array the graph reads as one row of the stacked items: exact
        // ndarray, at least one dim, a dtype the engine converts, native and
        // C-contiguous (the row is; NumPy's results follow their operands'
        // memory order, so another order would lay results out differently).
        bool stackable(PyObject* o)
        {
            if (!PyArray_CheckExact(o))
            {
                return false;
            }
            auto* a = reinterpret_cast<PyArrayObject*>(o);
            return PyArray_NDIM(a) >= 1 && PyArray_ISNOTSWAPPED(a) && PyArray_ISALIGNED(a) &&
                   PyArray_IS_C_CONTIGUOUS(a) &&
                   dtype_of_type_num(PyArray_DESCR(a)->type_num).has_value();
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
            return stackable(o) ? sequence_items::arrays : sequence_items::none;
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

        PyObject* at(const loop_cursor& cur, long long index, int part, std::size_t parts)
        {
            PyObject* o = loop_sequences::item(cur, index);
            return o != nullptr ? loop_sequences::part_of(o, part, parts) : nullptr;
        }

        PyObject* stack_scalars(const loop_cursor& cur, long long index, std::int64_t k, int part,
                                std::size_t parts, sequence_items kind)
        {
            npy_intp dims[1] = {static_cast<npy_intp>(k)};
            const int type = kind == sequence_items::floats ? NPY_FLOAT64 : NPY_INT64;
            PyObject* out = PyArray_SimpleNew(1, dims, type); // new reference
            if (out == nullptr)
            {
                return nullptr;
            }
            auto* a = reinterpret_cast<PyArrayObject*>(out);
            for (std::int64_t j = 0; j < k; ++j)
            {
                PyObject* o = at(cur, index + j, part, parts); // borrowed
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

        PyObject* stack_arrays(const loop_cursor& cur, long long index, std::int64_t k, int part,
                               std::size_t parts)
        {
            auto* first = reinterpret_cast<PyArrayObject*>(at(cur, index, part, parts));
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
                auto* x = reinterpret_cast<PyArrayObject*>(at(cur, index + j, part, parts));
                std::memcpy(static_cast<char*>(PyArray_DATA(a)) + j * row, PyArray_DATA(x),
                            static_cast<size_t>(row));
            }
            return owned.release().ptr();
        }
    } // namespace

    namespace loop_sequences
    {
        bool record(loop_cursor& cur, PyObject* iterable, PyObject* it)
        {
            const bool list = PyList_CheckExact(iterable) && Py_IS_TYPE(it, &PyListIter_Type);
            const bool tuple = PyTuple_CheckExact(iterable) && Py_IS_TYPE(it, &PyTupleIter_Type);
            if (!list && !tuple)
            {
                return false;
            }
            cur.iter = py::reinterpret_borrow<py::object>(it);
            cur.seq = py::reinterpret_borrow<py::object>(iterable);
            cur.frame = PyEval_GetFrame(); // borrowed
            cur.start = 0;
            cur.step = 1;
            cur.len = 0;
            return true;
        }

        bool position(const loop_cursor& cur, const std::vector<PyObject*>& bound, bool unpacks,
                      long long& index, long long& remaining)
        {
            // A list or tuple iterator's hint is the items after its index
            // (0 once exhausted): the item it gave last is just before.
            const Py_ssize_t left = PyObject_LengthHint(cur.iter.ptr(), -1);
            if (left < 0)
            {
                PyErr_Clear();
                return false;
            }
            const Py_ssize_t n = size_of(cur.seq.ptr());
            index = static_cast<long long>(n - left - 1);
            remaining = left;
            PyObject* now = index >= 0 && index < n ? item(cur, index) : nullptr;
            if (now == nullptr || bound.empty())
            {
                return false;
            }
            for (size_t p = 0; p < bound.size(); ++p)
            {
                const int part = unpacks ? static_cast<int>(p) : -1;
                const std::size_t parts = unpacks ? bound.size() : 0;
                if (bound[p] == nullptr || part_of(now, part, parts) != bound[p])
                {
                    return false;
                }
            }
            return true;
        }

        PyObject* part_of(PyObject* item, int part, std::size_t parts)
        {
            if (part < 0)
            {
                return item;
            }
            // CPython unpacks any iterable; a chunk reads tuples only.
            if (!PyTuple_CheckExact(item) ||
                static_cast<std::size_t>(PyTuple_GET_SIZE(item)) != parts)
            {
                return nullptr;
            }
            return PyTuple_GET_ITEM(item, part);
        }

        PyObject* item(const loop_cursor& cur, long long index)
        {
            PyObject* seq = cur.seq.ptr();
            if (index < 0 || index >= size_of(seq))
            {
                return nullptr;
            }
            return PyList_CheckExact(seq) ? PyList_GET_ITEM(seq, index)
                                          : PyTuple_GET_ITEM(seq, index);
        }

        std::int64_t uniform(const loop_cursor& cur, long long index, std::int64_t k,
                             std::size_t parts, std::vector<sequence_items>& kinds)
        {
            const int n = parts > 0 ? static_cast<int>(parts) : 1;
            kinds.assign(static_cast<size_t>(n), sequence_items::none);
            for (int p = 0; p < n; ++p)
            {
                PyObject* first = at(cur, index, parts > 0 ? p : -1, parts);
                kinds[p] = first != nullptr ? kind_of(first) : sequence_items::none;
                if (kinds[p] == sequence_items::none)
                {
                    kinds.assign(static_cast<size_t>(n), sequence_items::none);
                    return 0;
                }
            }
            for (std::int64_t j = 1; j < k; ++j)
            {
                for (int p = 0; p < n; ++p)
                {
                    const int part = parts > 0 ? p : -1;
                    PyObject* o = at(cur, index + j, part, parts);
                    if (o == nullptr || kind_of(o) != kinds[p] ||
                        (kinds[p] == sequence_items::arrays &&
                         !same_array_type(at(cur, index, part, parts), o)))
                    {
                        return j;
                    }
                }
            }
            return k;
        }

        PyObject* stack(const loop_cursor& cur, long long index, std::int64_t k, int part,
                        std::size_t parts, sequence_items kind)
        {
            return kind == sequence_items::arrays ? stack_arrays(cur, index, k, part, parts)
                                                  : stack_scalars(cur, index, k, part, parts, kind);
        }

        bool items_alias_inputs(const loop_cursor& cur, long long index, std::int64_t k,
                                std::size_t parts, const std::vector<PyObject*>& values)
        {
            const int n = parts > 0 ? static_cast<int>(parts) : 1;
            for (std::int64_t j = 0; j < k; ++j)
            {
                for (int p = 0; p < n; ++p)
                {
                    PyObject* x = at(cur, index + j, parts > 0 ? p : -1, parts);
                    if (x == nullptr || !PyArray_Check(x))
                    {
                        continue;
                    }
                    for (PyObject* v : values)
                    {
                        // (The stacks are fresh arrays: they alias nothing.)
                        if (v != nullptr && PyArray_Check(v) && overlap(x, v))
                        {
                            return true;
                        }
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
