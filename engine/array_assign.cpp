#include "engine/array_assign.hpp"

#include <cstring>
#include <vector>

#include "engine/numpy_api.hpp"

namespace specula::engine
{
    namespace
    {
        // One side of a copy: its first byte and its strides over dst's shape
        // (0 along a broadcast dim).
        struct strided
        {
            char* data = nullptr;
            std::vector<npy_intp> strides;
        };

        template <std::size_t n>
        void copy_row(char* d, npy_intp ds, const char* s, npy_intp ss, npy_intp len)
        {
            for (npy_intp i = 0; i < len; ++i)
            {
                std::memcpy(d + i * ds, s + i * ss, n);
            }
        }

        void copy_row_any(char* d, npy_intp ds, const char* s, npy_intp ss, npy_intp len,
                          std::size_t item)
        {
            switch (item)
            {
            case 1: copy_row<1>(d, ds, s, ss, len); return;
            case 2: copy_row<2>(d, ds, s, ss, len); return;
            case 4: copy_row<4>(d, ds, s, ss, len); return;
            case 8: copy_row<8>(d, ds, s, ss, len); return;
            case 16: copy_row<16>(d, ds, s, ss, len); return;
            default:
                for (npy_intp i = 0; i < len; ++i)
                {
                    std::memcpy(d + i * ds, s + i * ss, item);
                }
            }
        }

        // Every element of `shape` from src to dst, innermost dim as rows.
        void copy_nd(const std::vector<npy_intp>& shape, const strided& dst, const strided& src,
                     std::size_t item)
        {
            const auto nd = static_cast<int>(shape.size());
            if (nd == 0)
            {
                std::memcpy(dst.data, src.data, item);
                return;
            }
            std::vector<npy_intp> index(static_cast<std::size_t>(nd), 0);
            const npy_intp len = shape.back();
            for (;;)
            {
                char* d = dst.data;
                const char* s = src.data;
                for (int k = 0; k + 1 < nd; ++k)
                {
                    d += index[k] * dst.strides[k];
                    s += index[k] * src.strides[k];
                }
                copy_row_any(d, dst.strides.back(), s, src.strides.back(), len, item);
                int k = nd - 2;
                for (; k >= 0; --k)
                {
                    if (++index[k] < shape[k])
                    {
                        break;
                    }
                    index[k] = 0;
                }
                if (k < 0)
                {
                    return;
                }
            }
        }

        // The lowest and one past the highest byte a side touches.
        void extent(const std::vector<npy_intp>& shape, const strided& side, std::size_t item,
                    const char*& lo, const char*& hi)
        {
            lo = side.data;
            hi = side.data + item;
            for (std::size_t k = 0; k < shape.size(); ++k)
            {
                const npy_intp span = (shape[k] - 1) * side.strides[k];
                (span < 0 ? lo : hi) += span;
            }
        }

        // src's strides broadcast to dst's shape, or false where NumPy would
        // not broadcast (it then raises, through PyArray_CopyInto).
        bool broadcast_strides(PyArrayObject* dst, PyArrayObject* src, std::vector<npy_intp>& out)
        {
            const int nd = PyArray_NDIM(dst);
            const int snd = PyArray_NDIM(src);
            if (snd > nd)
            {
                return false;
            }
            out.assign(static_cast<std::size_t>(nd), 0);
            for (int k = 0; k < snd; ++k)
            {
                const int d = nd - snd + k;
                const npy_intp n = PyArray_DIM(src, k);
                if (n == PyArray_DIM(dst, d))
                {
                    out[static_cast<std::size_t>(d)] = PyArray_STRIDE(src, k);
                }
                else if (n != 1)
                {
                    return false;
                }
            }
            return true;
        }

        std::vector<npy_intp> c_strides(const std::vector<npy_intp>& shape, std::size_t item)
        {
            std::vector<npy_intp> out(shape.size(), 0);
            auto step = static_cast<npy_intp>(item);
            for (std::size_t k = shape.size(); k-- > 0;)
            {
                out[k] = step;
                step *= shape[k];
            }
            return out;
        }

        // Whether two stride vectors visit the same bytes in the same order
        // (a dim of one element has no stride that matters).
        bool same_walk(const std::vector<npy_intp>& shape, const std::vector<npy_intp>& a,
                       const std::vector<npy_intp>& b)
        {
            for (std::size_t k = 0; k < shape.size(); ++k)
            {
                if (shape[k] > 1 && a[k] != b[k])
                {
                    return false;
                }
            }
            return true;
        }

        bool basic_index_item(PyObject* k)
        {
            // A bool is an advanced index for NumPy (a mask), not an int.
            return !PyBool_Check(k) && (PyLong_Check(k) || PySlice_Check(k) || k == Py_None ||
                                        k == Py_Ellipsis || PyArray_IsScalar(k, Integer));
        }

        bool basic_index(PyObject* key)
        {
            if (!PyTuple_Check(key))
            {
                return basic_index_item(key);
            }
            for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(key); ++i)
            {
                if (!basic_index_item(PyTuple_GET_ITEM(key, i)))
                {
                    return false;
                }
            }
            return true;
        }
    } // namespace

    int assign_array(PyObject* dst_obj, PyObject* src_obj)
    {
        auto* dst = reinterpret_cast<PyArrayObject*>(dst_obj);
        auto* src = reinterpret_cast<PyArrayObject*>(src_obj);
        std::vector<npy_intp> src_strides;
        if (!PyArray_Check(dst_obj) || !PyArray_Check(src_obj) ||
            !PyArray_EquivTypes(PyArray_DESCR(dst), PyArray_DESCR(src)) ||
            PyDataType_REFCHK(PyArray_DESCR(dst)) || !PyArray_ISWRITEABLE(dst) ||
            !broadcast_strides(dst, src, src_strides))
        {
            // NumPy's assignment: its cast, its errors (the GIL may drop).
            return PyArray_CopyInto(dst, src);
        }
        const std::vector<npy_intp> shape(PyArray_DIMS(dst), PyArray_DIMS(dst) + PyArray_NDIM(dst));
        if (PyArray_SIZE(dst) == 0)
        {
            return 0;
        }
        const auto item = static_cast<std::size_t>(PyArray_ITEMSIZE(dst));
        const strided to{PyArray_BYTES(dst),
                         std::vector<npy_intp>(PyArray_STRIDES(dst),
                                               PyArray_STRIDES(dst) + PyArray_NDIM(dst))};
        strided from{PyArray_BYTES(src), src_strides};
        const char* dlo = nullptr;
        const char* dhi = nullptr;
        const char* slo = nullptr;
        const char* shi = nullptr;
        extent(shape, to, item, dlo, dhi);
        extent(shape, from, item, slo, shi);
        const std::vector<npy_intp> c_order = c_strides(shape, item);
        std::vector<char> staged;
        if (slo < dhi && dlo < shi)
        {
            // Overlapping memory: NumPy reads src whole before writing
            // (it copies to a temporary), so the copy goes through one too.
            staged.resize(static_cast<std::size_t>(PyArray_SIZE(dst)) * item);
            const strided tmp{staged.data(), c_order};
            copy_nd(shape, tmp, from, item);
            from = tmp;
        }
        if (same_walk(shape, to.strides, c_order) && same_walk(shape, from.strides, c_order))
        {
            std::memcpy(to.data, from.data, static_cast<std::size_t>(PyArray_SIZE(dst)) * item);
            return 0;
        }
        copy_nd(shape, to, from, item);
        return 0;
    }

    int assign_item(PyObject* target, PyObject* key, PyObject* value)
    {
        if (!PyArray_CheckExact(target) || !PyArray_Check(value) || !basic_index(key))
        {
            return PyObject_SetItem(target, key, value);
        }
        // Basic indexing gives NumPy's view of the items (no copy, no Python
        // code); a full integer index gives a scalar, set by NumPy itself.
        PyObject* view = PyObject_GetItem(target, key); // new reference
        if (view == nullptr)
        {
            return -1;
        }
        const int rc = PyArray_Check(view) ? assign_array(view, value)
                                           : PyObject_SetItem(target, key, value);
        Py_DECREF(view);
        return rc;
    }
} // namespace specula::engine
