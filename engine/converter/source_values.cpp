// Sources read into values when the converter first meets them: Python
// scalars (constants, or relaxed graph inputs), NumPy scalars and arrays
// (graph inputs under their guards, or the array a source already gave).
#include "engine/converter/converter.hpp"

#include "engine/backend_choice.hpp"
#include "engine/converter/symbolic_broadcast.hpp"
#include "engine/numpy_api.hpp"
#include "engine/py_errors.hpp"

namespace specula::engine::converter
{
    cval converter::read_source(int src, PyObject* object)
    {
        const std::string& path = m_spec->sources[src].path;
        if (object == nullptr)
        {
            fail("unbound name " + path, py::handle());
        }
        cval v;
        v.src = src;
        v.obj = py::reinterpret_borrow<py::object>(object);
        if (PyArray_Check(object))
        {
            return array_input(src, object, py::handle());
        }
        const bool relaxed = m_profile.value_relaxed(path) || m_relaxed_sources.count(src) > 0;
        if (PyFloat_CheckExact(object) && relaxed)
        {
            m_spec->guards.add(make_type_guard(src, &PyFloat_Type, path));
            ir::value_id in = hoisted_input({ir::dtype::float64, ir::shape{}}, path);
            m_spec->inputs.push_back({src, true});
            return new_array(in, surface::py_float);
        }
        if (PyLong_CheckExact(object) && relaxed)
        {
            int overflow = 0;
            long long seen = PyLong_AsLongLongAndOverflow(object, &overflow);
            if (overflow == 0 && seen >= relaxed_int_lo && seen <= relaxed_int_hi)
            {
                // A changing int becomes an int64 input; the range guard keeps
                // every graph computation on it exact (python_int_binary).
                m_spec->guards.add(make_int_range_guard(src, relaxed_int_lo, relaxed_int_hi, path));
                ir::value_id in = hoisted_input({ir::dtype::int64, ir::shape{}}, path);
                graph_input gi{src, false};
                gi.py_int = true;
                m_spec->inputs.push_back(gi);
                cval r = new_array(in, surface::py_int);
                m_arrays[static_cast<size_t>(r.arr)].int_lo = relaxed_int_lo;
                m_arrays[static_cast<size_t>(r.arr)].int_hi = relaxed_int_hi;
                m_arrays[static_cast<size_t>(r.arr)].expr = int_leaf(src, object, path);
                return r;
            }
        }
        if (PyArray_IsScalar(object, Generic))
        {
            return numpy_scalar_input(src, object);
        }
        bool value_like = PyLong_CheckExact(object) || PyFloat_CheckExact(object) ||
                          PyBool_Check(object) || PyUnicode_CheckExact(object) || object == Py_None;
        if (value_like)
        {
            if (PyLong_CheckExact(object))
            {
                int overflow = 0;
                PyLong_AsLongLongAndOverflow(object, &overflow);
                if (overflow != 0)
                {
                    fail("Python int beyond 64 bits (" + path + ")", py::handle());
                }
            }
            m_spec->guards.add(make_value_guard(src, object, path));
            v.k = cval::kind::constant;
            return v;
        }
        // A dtype by identity, not type: ">f4" and "<f4" share numpy.dtype[float32].
        if (PyModule_CheckExact(object) || PyFunction_Check(object) || PyCFunction_Check(object) ||
            PyType_Check(object) || PyArray_DescrCheck(object) ||
            !m_whitelist.name_of(object).empty())
        {
            m_spec->guards.add(make_identity_guard(src, object, path));
        }
        else
        {
            m_spec->guards.add(make_type_guard(src, Py_TYPE(object), path));
        }
        v.k = cval::kind::object;
        return v;
    }

    // A NumPy scalar is always a graph input, never a specialised value: code
    // that passes `loss = x.sum()` or `np.float32(lr)` around sees a new object
    // on every call. Its exact type is guarded (np.float64 is a float subclass,
    // np.float32 is not; the dtype decides promotion and the result types).
    cval converter::numpy_scalar_input(int src, PyObject* object)
    {
        const std::string& path = m_spec->sources[src].path;
        PyArray_Descr* descr = PyArray_DescrFromScalar(object); // new reference
        if (descr == nullptr)
        {
            PyErr_Clear();
            fail("NumPy scalar without a dtype (" + path + ")", py::handle());
        }
        const int type_num = descr->type_num;
        const bool native = PyArray_ISNBO(descr->byteorder);
        Py_DECREF(descr);
        auto elem = dtype_of_type_num(type_num);
        if (!elem || !native)
        {
            fail("NumPy scalar of type " + std::string(Py_TYPE(object)->tp_name) + " (" + path +
                     ")",
                 py::handle());
        }
        m_spec->guards.add(make_type_guard(src, Py_TYPE(object), path));
        ir::value_id in = hoisted_input({*elem, ir::shape{}}, path);
        graph_input gi{src, false};
        gi.np_scalar = true;
        gi.scalar_elem = *elem;
        m_spec->inputs.push_back(gi);
        return new_array(in, surface::np_scalar);
    }

    cval converter::array_input(int src, PyObject* array, py::handle node)
    {
        auto found = m_array_of_source.find(src);
        if (found != m_array_of_source.end())
        {
            cval v;
            v.k = cval::kind::array;
            v.arr = found->second;
            return v;
        }
        const std::string& path = m_spec->sources[src].path;
        if (!PyArray_CheckExact(array))
        {
            fail("ndarray subclass " + std::string(Py_TYPE(array)->tp_name) + " (" + path + ")",
                 node);
        }
        auto* a = reinterpret_cast<PyArrayObject*>(array);
        auto elem = dtype_of_type_num(PyArray_DESCR(a)->type_num);
        if (!elem)
        {
            fail("array dtype " + std::string(PyArray_DESCR(a)->typeobj->tp_name) + " (" + path +
                     ")",
                 node);
        }
        if (!PyArray_ISNOTSWAPPED(a) || !PyArray_ISALIGNED(a))
        {
            fail("unaligned or byte-swapped array (" + path + ")", node);
        }
        std::vector<ir::dim> dims;
        std::vector<int> symbolic;
        for (int i = 0; i < PyArray_NDIM(a); ++i)
        {
            std::int64_t n = PyArray_DIMS(a)[i];
            if (PyArray_STRIDES(a)[i] < 0)
            {
                fail("array with negative strides (" + path + ")", node);
            }
            if (m_profile.dim_relaxed(path, i) && n != 1)
            {
                auto sym = m_symbol_of_size.find(n);
                // From the graph's counter: symbols the graph made for earlier
                // ops (slices, masks) must not be reused for an unrelated size.
                int id = sym != m_symbol_of_size.end() ? sym->second : p_graph->new_symbol();
                if (id >= max_symbols)
                {
                    fail("too many symbolic dims", node);
                }
                m_symbol_of_size[n] = id;
                symbolic.push_back(id);
                dims.push_back(ir::dim::symbol(id));
            }
            else
            {
                symbolic.push_back(-1);
                dims.push_back(ir::dim::fixed(n));
            }
        }
        // Writeability is decided later (finish_graph) once writes are known.
        m_spec->guards.add(make_array_guard(src, array, symbolic, false, path));
        ir::value_id in = hoisted_input({*elem, ir::shape(dims)}, path);
        m_input_contiguous[in] = PyArray_IS_C_CONTIGUOUS(a);
        m_spec->inputs.push_back({src, false});
        // A 0-d array is an ndarray object, not a NumPy scalar: `b += 1` writes
        // into it, returning it hands out the same object, and its integer
        // arithmetic runs NumPy's array loops (wrapping, as the graph does).
        // Only ufunc results and reductions of rank 0 are NumPy scalars.
        cval v = new_array(in, surface::ndarray);
        m_arrays[static_cast<size_t>(v.arr)].src = src;
        m_array_of_source[src] = v.arr;
        m_seen_arrays[src] = py::reinterpret_borrow<py::object>(array);
        return v;
    }
} // namespace specula::engine::converter
