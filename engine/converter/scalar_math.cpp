// The math module on Python scalars. On specialised values Python evaluates the
// call itself (exact, and an error leaves the call to CPython, which raises).
// On values known only at run time only functions whose IEEE result is unique
// are converted: math.sqrt (correctly rounded, as SQRT) and math.fabs; exp, log,
// tanh... come from the C library in Python and from NumPy's loops in a graph,
// which may differ in the last bit, so they stay in CPython.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    cval converter::call_math(const std::string& name, const call_args& args, py::handle node)
    {
        const auto& p = args.positional;
        if (!args.keywords.empty())
        {
            fail("math." + name + " with keywords", node);
        }
        bool all_constant = true;
        for (const cval& c : p)
        {
            if (c.k == cval::kind::constant)
            {
                PyObject* o = c.obj.ptr();
                if (!PyLong_CheckExact(o) && !PyFloat_CheckExact(o) && !PyBool_Check(o))
                {
                    fail("math." + name + " of a " + std::string(Py_TYPE(o)->tp_name), node);
                }
                continue;
            }
            all_constant = false;
        }
        if (all_constant)
        {
            py::tuple targs(p.size());
            for (size_t i = 0; i < p.size(); ++i)
            {
                targs[i] = p[i].obj;
            }
            cval out;
            try
            {
                out.obj = py::module_::import("math").attr(name.c_str())(*targs);
            }
            catch (py::error_already_set& e)
            {
                if (!e.matches(PyExc_Exception))
                {
                    throw; // the user's interrupt, not a conversion failure
                }
                fail("math." + name + " raising on this call", node);
            }
            return out;
        }
        if ((name != "sqrt" && name != "fabs") || p.size() != 1 || p[0].k != cval::kind::array)
        {
            fail("math." + name +
                     " of a value known only at run time (not bit-identical to the math module)",
                 node);
        }
        const array_entry& e = m_arrays[static_cast<size_t>(p[0].arr)];
        const ir::value_type& t = type_of(e.value);
        if (e.surf != surface::py_float && e.surf != surface::py_int &&
            !(t.dims.rank() == 0 && t.elem == ir::dtype::float64))
        {
            fail("math." + name + " of this value", node);
        }
        ir::value_id x = as_float64(p[0], node); // math converts ints to float first
        if (name == "fabs")
        {
            return new_array(m_builder->unary(ir::op::ABS, x), surface::py_float);
        }
        // math.sqrt raises ValueError below zero (NaN passes through): exit.
        ir::value_id zero = m_builder->constant(ir::scalar::of_float(ir::dtype::float64, 0.0));
        add_assert(m_builder->unary(ir::op::LOGICAL_NOT, m_builder->binary(ir::op::LT, x, zero)),
                   "math domain error at " + where(node));
        return new_array(m_builder->unary(ir::op::SQRT, x), surface::py_float);
    }
} // namespace specula::engine::converter
