// Builtins on values the converter holds: len, range, abs, min, max, float,
// int, bool, isinstance... evaluated by Python on specialised values, or
// mapped to IR where their result is only known at run time.
#include <algorithm>

#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        // isinstance(inst, cls) as CPython answers it, when that runs no
        // Python code: an exact type match, or a class whose metaclass is
        // `type` (no __instancecheck__) and either a subclass instance or an
        // instance whose __class__ is object's own, read by the generic
        // lookup. A False answer for an instance of a class written in Python
        // (`isinstance(layer, Dropout)` over a list of layers) is kept: that
        // class gaining a __class__ property or __getattribute__ after the
        // conversion is not guarded (engine/README.md, "Not done yet").
        bool instance_check_runs_no_python(PyObject* inst, PyObject* cls, bool& answer)
        {
            auto* type = reinterpret_cast<PyTypeObject*>(cls);
            if (Py_IS_TYPE(inst, type))
            {
                answer = true;
                return true;
            }
            if (!PyType_CheckExact(cls))
            {
                return false;
            }
            if (PyObject_TypeCheck(inst, type))
            {
                answer = true;
                return true;
            }
            // CPython then reads inst.__class__; object's descriptor returns
            // the instance's type, which is not a subclass of cls.
            PyTypeObject* t = Py_TYPE(inst);
            py::str key("__class__");
            PyObject* own = _PyType_Lookup(t, key.ptr());                   // borrowed
            PyObject* base = _PyType_Lookup(&PyBaseObject_Type, key.ptr()); // borrowed
            answer = false;
            return t->tp_getattro == PyObject_GenericGetAttr && own != nullptr && own == base;
        }
    } // namespace

    cval converter::call_builtin(const std::string& name, const call_args& args, py::handle node)
    {
        const auto& p = args.positional;
        auto constant = [](py::object o)
        {
            cval c;
            c.obj = std::move(o);
            return c;
        };
        auto all_constant = [&]()
        {
            for (const cval& c : p)
                if (c.k != cval::kind::constant)
                    return false;
            return args.keywords.empty();
        };
        if (name == "range")
        {
            if (!all_constant() || p.empty() || p.size() > 3)
                fail("range over values that are not specialised ints", node);
            py::list vals;
            py::tuple targs(p.size());
            for (size_t i = 0; i < p.size(); ++i)
                targs[i] = p[i].obj;
            py::object r = py::module_::import("builtins").attr("range")(*targs);
            if (py::len(r) > static_cast<size_t>(m_config.max_unrolled_statements))
                fail("range too long to unroll", node);
            cval tup;
            tup.k = cval::kind::tuple;
            for (py::handle i : r)
                tup.items.push_back(constant(py::reinterpret_borrow<py::object>(i)));
            return tup;
        }
        if (name == "len")
        {
            if (p.size() != 1)
                fail("len with these arguments", node);
            if (p[0].k == cval::kind::tuple)
                return constant(py::int_(p[0].items.size()));
            if (p[0].k == cval::kind::array)
            {
                ir::value_id x = value_of(p[0], node);
                if (type_of(x).dims.rank() == 0)
                    fail("len of a 0-d array", node);
                return dim_value(x, 0, node); // an int64 scalar when the dim is symbolic
            }
            if (p[0].k == cval::kind::constant)
                return constant(py::int_(py::len(p[0].obj)));
            return container_len(p[0], node);
        }
        if (name == "zip" || name == "enumerate" || name == "reversed")
        {
            cval tup;
            tup.k = cval::kind::tuple;
            std::vector<cval> seqs = p;
            for (cval& c : seqs)
            {
                // Python's iterators read the list as they go: a list
                // changed after this is refused (code_lists.cpp).
                if (c.k == cval::kind::object)
                {
                    // A list/tuple source: its items, its length guarded.
                    c.items = sequence_items(c, node);
                    c.k = cval::kind::tuple;
                    m_lazily_read_sources.insert(c.src);
                }
                else if (is_code_list(c))
                {
                    m_lists[static_cast<size_t>(c.list)].lazily_read = true;
                }
                if (c.k != cval::kind::tuple)
                    fail(name + " over this iterable", node);
            }
            if (name == "reversed" && seqs.size() == 1)
            {
                tup.items.assign(seqs[0].items.rbegin(), seqs[0].items.rend());
                return tup;
            }
            if (name == "enumerate" && seqs.size() == 1 && args.keywords.empty())
            {
                for (size_t i = 0; i < seqs[0].items.size(); ++i)
                {
                    cval pair;
                    pair.k = cval::kind::tuple;
                    pair.items = {constant(py::int_(i)), seqs[0].items[i]};
                    tup.items.push_back(pair);
                }
                return tup;
            }
            if (name == "zip" && !seqs.empty())
            {
                size_t n = seqs[0].items.size();
                for (const cval& c : seqs)
                    n = std::min(n, c.items.size());
                for (size_t i = 0; i < n; ++i)
                {
                    cval row;
                    row.k = cval::kind::tuple;
                    for (const cval& c : seqs)
                        row.items.push_back(c.items[i]);
                    tup.items.push_back(row);
                }
                return tup;
            }
            fail(name + " with these arguments", node);
        }
        if (all_constant())
        {
            // abs/min/max/float/int/bool/isinstance on known Python values:
            // evaluate them with Python itself (exact).
            py::tuple targs(p.size());
            for (size_t i = 0; i < p.size(); ++i)
            {
                if (!PyLong_CheckExact(p[i].obj.ptr()) && !PyFloat_CheckExact(p[i].obj.ptr()) &&
                    !PyBool_Check(p[i].obj.ptr()) && !(name == "isinstance" && i == 1))
                    fail(name + " of this constant", node);
                targs[i] = p[i].obj;
            }
            try
            {
                return constant(py::module_::import("builtins").attr(name.c_str())(*targs));
            }
            catch (py::error_already_set& e)
            {
                if (!e.matches(PyExc_Exception))
                {
                    throw; // the user's interrupt, not a conversion failure
                }
                fail(name + " raising on this call", node);
            }
        }
        if (name == "isinstance" && p.size() == 2 && p[1].k == cval::kind::object &&
            PyType_Check(p[1].obj.ptr()))
        {
            // The type of the first argument is guarded: answer with an
            // instance of that type.
            py::object sample;
            if (p[0].k == cval::kind::object)
                sample = p[0].obj;
            else if (p[0].k == cval::kind::array)
            {
                const array_entry& e = m_arrays[static_cast<size_t>(p[0].arr)];
                py::module_ np = py::module_::import("numpy");
                std::string dt(ir::dtype_name(type_of(e.value).elem));
                sample = e.surf == surface::ndarray    ? np.attr("zeros")(0, dt)
                         : e.surf == surface::py_float ? py::object(py::float_(0.0))
                         : e.surf == surface::py_int   ? py::object(py::int_(0))
                         : e.surf == surface::py_bool  ? py::object(py::bool_(false))
                                                       : np.attr("dtype")(dt).attr("type")(0);
            }
            else
                fail("isinstance of this value", node);
            bool answer = false;
            if (!instance_check_runs_no_python(sample.ptr(), p[1].obj.ptr(), answer))
            {
                // CPython runs that code at every call; answering here would
                // run it once at conversion and never again.
                fail("isinstance that runs Python code (a metaclass __instancecheck__ or "
                     "an overridden __class__)",
                     node);
            }
            return constant(py::bool_(answer));
        }
        if (name == "float" && p.size() == 1 && p[0].k == cval::kind::array)
        {
            const array_entry& e = m_arrays[static_cast<size_t>(p[0].arr)];
            const ir::value_type& t = type_of(e.value);
            // Exact below 2**53, which as_float64 makes sure of.
            if (e.surf == surface::py_int)
                return new_array(as_float64(p[0], node), surface::py_float);
            // A NumPy scalar or 0-d array: __float__ is the C conversion to
            // double (exact for float32 and bool, round-to-nearest for int64),
            // which CAST performs.
            if (t.dims.rank() == 0)
                return new_array(m_builder->cast(e.value, ir::dtype::float64), surface::py_float);
        }
        if (name == "abs" && p.size() == 1 && p[0].k == cval::kind::array)
        {
            const array_entry& e = m_arrays[static_cast<size_t>(p[0].arr)];
            if (e.surf == surface::py_int)
            {
                // Exact: the range is far inside int64.
                std::int64_t m = std::max(-e.int_lo, e.int_hi);
                cval out = new_array(m_builder->unary(ir::op::ABS, e.value), surface::py_int);
                m_arrays[static_cast<size_t>(out.arr)].int_lo = e.int_lo >= 0 ? e.int_lo : 0;
                m_arrays[static_cast<size_t>(out.arr)].int_hi = m;
                return out;
            }
            if (e.surf == surface::py_bool)
            {
                // abs(True) is the int 1: bool.__abs__ is int's.
                cval out = new_array(m_builder->cast(e.value, ir::dtype::int64), surface::py_int);
                m_arrays[static_cast<size_t>(out.arr)].int_lo = 0;
                m_arrays[static_cast<size_t>(out.arr)].int_hi = 1;
                return out;
            }
            // abs() of a 0-d array is NumPy's absolute ufunc: a NumPy scalar.
            const surface surf = e.surf == surface::ndarray && type_of(e.value).dims.rank() == 0
                                     ? surface::np_scalar
                                     : e.surf;
            return new_array(m_builder->unary(ir::op::ABS, e.value), surf);
        }
        if (name == "bool" && p.size() == 1 && p[0].k == cval::kind::array)
        {
            // A Python number, NumPy scalar or 0-d array (`bool(err < tol)`):
            // __bool__ is `!= 0`, NaN true; larger arrays are refused there.
            return new_array(truth_value(p[0], node), surface::py_bool);
        }
        fail("builtin " + name + " on array data", node);
    }
} // namespace specula::engine::converter
