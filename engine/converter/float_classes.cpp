// np.isnan, np.isinf and np.isfinite on float values: the tests that end a
// training loop on a diverged loss (`if np.isnan(loss): break`). Built from
// quiet comparisons (x != x, |x| == inf), which raise no floating-point flag
// on a NaN, as NumPy's own loops raise none.
#include "engine/converter/converter.hpp"

#include <limits>

namespace specula::engine::converter
{
    bool converter::is_float_class_call(const std::string& name)
    {
        return name == "isnan" || name == "isinf" || name == "isfinite";
    }

    cval converter::call_float_class(const std::string& name, const call_args& args,
                                     py::handle node)
    {
        if (args.positional.size() != 1 || !args.keywords.empty())
        {
            fail("np." + name + " with other than one argument", node);
        }
        cval x = args.positional[0];
        if (x.k == cval::kind::constant && PyFloat_CheckExact(x.obj.ptr()))
        {
            x = const_array(node, x, ir::dtype::float64);
        }
        if (x.k != cval::kind::array)
        {
            fail("np." + name + " on this value", node);
        }
        ir::value_id v = value_of(x, node);
        const ir::dtype elem = type_of(v).elem;
        if (!ir::is_float(elem))
        {
            fail("np." + name + " on a non-float dtype", node);
        }
        ir::value_id nan = m_builder->binary(ir::op::NE, v, v);
        ir::value_id inf = m_builder->binary(ir::op::EQ, m_builder->unary(ir::op::ABS, v),
                                             m_builder->constant(ir::scalar::of_float(
                                                 elem, std::numeric_limits<double>::infinity())));
        ir::value_id out = name == "isnan" ? nan
                           : name == "isinf"
                               ? inf
                               : m_builder->unary(ir::op::LOGICAL_NOT,
                                                  m_builder->binary(ir::op::LOGICAL_OR, nan, inf));
        if (!m_builder->ok())
        {
            fail("np." + name + " (IR: " + m_builder->state().message() + ")", node);
        }
        // A Python float or a 0-d array gives a NumPy bool, an array an array.
        const int rank = type_of(out).dims.rank();
        return new_array(out, rank == 0 ? surface::np_scalar : surface::ndarray);
    }
} // namespace specula::engine::converter
