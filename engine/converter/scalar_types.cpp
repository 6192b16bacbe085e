// np.float32(x) and np.float64(x): NumPy's scalar types called as functions,
// as notebooks do to fix a learning rate's or a loss's precision. Only the
// forms whose NumPy result is one new scalar are converted; NumPy's own
// rounding is reproduced exactly (README table).
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        // Python ints NumPy turns into a float through a double (its setitem
        // calls PyFloat_AsDouble): exact below these magnitudes, so a
        // specialised int needs no second rounding to be right.
        constexpr long long exact_float32_int = 1LL << 24;
        constexpr long long exact_float64_int = 1LL << 53;
    } // namespace

    bool converter::is_scalar_type_call(const std::string& name)
    {
        return name == "float32" || name == "float64";
    }

    cval converter::call_scalar_type(const std::string& name, const call_args& args,
                                     py::handle node)
    {
        const ir::dtype to = name == "float32" ? ir::dtype::float32 : ir::dtype::float64;
        if (args.positional.size() != 1 || !args.keywords.empty())
        {
            fail("np." + name + " with other than one argument", node);
        }
        const cval& x = args.positional[0];
        if (x.k == cval::kind::constant)
        {
            PyObject* o = x.obj.ptr();
            if (PyLong_CheckExact(o))
            {
                int overflow = 0;
                const long long i = PyLong_AsLongLongAndOverflow(o, &overflow);
                const long long limit =
                    to == ir::dtype::float32 ? exact_float32_int : exact_float64_int;
                if (overflow != 0 || i > limit || i < -limit)
                {
                    fail("np." + name + " of an int it cannot hold exactly", node);
                }
            }
            else if (!PyFloat_CheckExact(o) && !PyBool_Check(o))
            {
                fail("np." + name + " of this constant", node);
            }
            return const_array(node, x, to);
        }
        if (x.k != cval::kind::array)
        {
            fail("np." + name + " of this value", node);
        }
        const surface s = m_arrays[static_cast<size_t>(x.arr)].surf;
        ir::value_id v = value_of(x, node);
        const ir::value_type& t = type_of(v);
        if (t.dims.rank() != 0)
        {
            // NumPy returns an array then, and the argument itself when its
            // dtype already matches: astype says which one is meant.
            fail("np." + name + " of an array of rank >= 1 (astype converts)", node);
        }
        if (s == surface::py_int)
        {
            // A Python int reaches NumPy's scalar through a double, rounded
            // once more for float32: the same two steps.
            v = m_builder->cast(v, ir::dtype::float64);
        }
        else if (s != surface::py_float && s != surface::py_bool && ir::is_integer(t.elem))
        {
            fail("np." + name + " of an integer NumPy scalar", node);
        }
        return new_array(m_builder->cast(v, to), surface::np_scalar);
    }
} // namespace specula::engine::converter
