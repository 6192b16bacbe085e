// Arguments of NumPy calls: Python scalars as graph constants of a given
// dtype, constant arrays, `dtype=` and shape arguments, and `out=`.
#include "engine/converter/converter.hpp"

#include "engine/numpy_api.hpp"

namespace specula::engine::converter
{

    ir::value_id converter::scalar_constant(const cval& v, ir::dtype elem, py::handle node)
    {
        PyObject* o = v.obj.ptr();
        if (v.k != cval::kind::constant ||
            !(PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyBool_Check(o)))
        {
            fail("a non-numeric constant in array arithmetic", node);
        }
        ir::scalar s;
        if (ir::is_float(elem))
        {
            double d = PyFloat_AsDouble(o); // Python's own int -> float rounding
            if (PyErr_Occurred())
            {
                PyErr_Clear();
                fail("Python int too large for a float", node);
            }
            s = ir::scalar::of_float(
                elem, elem == ir::dtype::float32 ? static_cast<double>(static_cast<float>(d)) : d);
        }
        else if (PyFloat_CheckExact(o))
        {
            fail("a float constant in integer arithmetic", node);
        }
        else if (elem == ir::dtype::bool_)
        {
            s = ir::scalar::of_bool(PyObject_IsTrue(o) == 1);
        }
        else
        {
            s = ir::scalar::of_int(elem, PyLong_AsLongLong(o));
        }
        return m_builder->constant(s);
    }

    cval converter::const_array(py::handle node, const cval& v, ir::dtype elem)
    {
        return new_array(scalar_constant(v, elem, node), surface::np_scalar);
    }

    ir::dtype converter::dtype_arg(const cval& v, py::handle node)
    {
        if (v.k != cval::kind::constant && v.k != cval::kind::object)
        {
            fail("dtype argument of this kind", node);
        }
        PyObject* o = v.obj.ptr(); // borrowed from v
        if (v.k == cval::kind::object && !PyArray_DescrCheck(o) &&
            !(PyType_Check(o) &&
              !PyType_HasFeature(reinterpret_cast<PyTypeObject*>(o), Py_TPFLAGS_HEAPTYPE)))
        {
            // np.dtype() of any other object reads its .dtype: a property
            // (or __getattr__) would run once here and never in the graph.
            fail("dtype argument that is neither a dtype, a NumPy or builtin type nor a name",
                 node);
        }
        std::string name;
        try
        {
            py::object descr = py::module_::import("numpy").attr("dtype")(v.obj);
            if (!descr.attr("isnative").cast<bool>())
            {
                // Its name is the native type's ("float32" for ">f4"): the
                // graph would give the native byte order.
                fail("dtype argument of non-native byte order", node);
            }
            name = py::str(descr.attr("name"));
        }
        catch (py::error_already_set& e)
        {
            if (!e.matches(PyExc_Exception))
            {
                throw; // the user's interrupt, not a conversion failure
            }
            fail("dtype argument not understood", node);
        }
        auto t = ir::dtype_from_name(name);
        if (!t)
        {
            fail("dtype " + name, node);
        }
        return *t;
    }

    std::vector<std::int64_t> converter::shape_arg(const cval& v, py::handle node)
    {
        std::vector<std::int64_t> out;
        auto one = [&](const cval& c)
        {
            if (c.k != cval::kind::constant || !PyLong_CheckExact(c.obj.ptr()))
                fail("shape that is not specialised ints", node);
            out.push_back(c.obj.cast<std::int64_t>());
        };
        if (v.k == cval::kind::tuple)
        {
            for (const cval& c : v.items)
                one(c);
        }
        else if (v.k == cval::kind::constant && PyTuple_CheckExact(v.obj.ptr()))
        {
            for (py::handle h : v.obj)
            {
                cval c;
                c.obj = py::reinterpret_borrow<py::object>(h);
                one(c);
            }
        }
        else
        {
            one(v);
        }
        return out;
    }

    cval converter::with_out(const cval& result, const call_args& args, py::handle node)
    {
        auto out = args.keywords.find("out");
        if (out == args.keywords.end() ||
            (out->second.k == cval::kind::constant && out->second.obj.is_none()))
        {
            return result;
        }
        const cval& target = out->second;
        if (target.k != cval::kind::array ||
            m_arrays[static_cast<size_t>(target.arr)].surf != surface::ndarray)
        {
            fail("out= that is not an array", node);
        }
        ir::value_id v = value_of(result, node);
        m_arrays[static_cast<size_t>(target.arr)].unwritten = false; // out= writes every element
        write_array(target.arr, v, node);
        return target; // NumPy returns the out array itself
    }
} // namespace specula::engine::converter
