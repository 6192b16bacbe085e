// The `**` operator on arrays. ndarray.__pow__ does not always call the power
// ufunc: for a scalar exponent of 2, 0.5 or -1 NumPy calls square, sqrt or
// reciprocal instead (numpy/core/src/multiarray/number.c), and those differ
// from pow() in the last bit, at signed zeros and at infinities. np.power()
// itself always takes the power loop, so only the operator comes here.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        // The exponents NumPy takes in its fast path: a Python int or float
        // known at conversion (constants are guarded).
        bool scalar_exponent(const cval& b, double& value, bool& is_float)
        {
            if (b.k != cval::kind::constant)
            {
                return false;
            }
            PyObject* o = b.obj.ptr(); // borrowed from b
            if (PyFloat_CheckExact(o))
            {
                value = PyFloat_AsDouble(o);
                is_float = true;
                return true;
            }
            if (PyLong_Check(o)) // bool included, as NumPy's PyLong_Check
            {
                int overflow = 0;
                const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
                if (overflow != 0)
                {
                    return false;
                }
                value = static_cast<double>(v);
                is_float = false;
                return true;
            }
            return false;
        }
    } // namespace

    cval converter::power_operator(const cval& a, const cval& b, bool in_place, py::handle node)
    {
        const bool left_is_ndarray = a.k == cval::kind::array &&
                                     m_arrays[static_cast<size_t>(a.arr)].surf == surface::ndarray;
        if (!left_is_ndarray)
        {
            return binary(ir::op::POW, a, b, node); // Python or NumPy-scalar power
        }
        double e = 0.0;
        bool e_is_float = false;
        if (!scalar_exponent(b, e, e_is_float))
        {
            if (b.k == cval::kind::array &&
                m_arrays[static_cast<size_t>(b.arr)].surf != surface::ndarray)
            {
                fail("array ** a scalar exponent known only at run time", node);
            }
            return binary(ir::op::POW, a, b, node); // array exponent: the power ufunc
        }
        const ir::value_id x = value_of(a, node);
        const ir::dtype elem = type_of(x).elem;
        // The power ufunc's result: a NumPy scalar for a 0-d array.
        const surface surf = type_of(x).dims.rank() == 0 ? surface::np_scalar : surface::ndarray;
        if (ir::is_float(elem))
        {
            if (e == 2.0 || e == 0.5 || e == -1.0)
            {
                const ir::op code = e == 2.0   ? ir::op::SQUARE
                                    : e == 0.5 ? ir::op::SQRT
                                               : ir::op::RECIPROCAL;
                return new_array(m_builder->unary(code, x), surf);
            }
            if (e == 1.0 || e == 0.0)
            {
                fail("array ** 1 or ** 0 (NumPy returns a copy / ones)", node);
            }
            return binary(ir::op::POW, a, b, node);
        }
        if (elem == ir::dtype::bool_)
        {
            fail("** on a bool array", node);
        }
        if (e != 2.0)
        {
            return binary(ir::op::POW, a, b, node);
        }
        if (!e_is_float)
        {
            return new_array(m_builder->unary(ir::op::SQUARE, x), surf);
        }
        if (in_place)
        {
            fail("integer array **= a float", node);
        }
        // An integer array to a float power 2: NumPy casts to float64, then squares.
        return new_array(m_builder->unary(ir::op::SQUARE, m_builder->cast(x, ir::dtype::float64)),
                         surf);
    }
} // namespace specula::engine::converter
