// NumPy 1.24's value-based promotion when an operand's value is known only
// at run time, and the scalar arithmetic NumPy checks that a graph must not
// take over.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        double largest_of(ir::dtype t)
        {
            switch (t)
            {
            case ir::dtype::float32:
                return 3.4028234663852886e38;
            case ir::dtype::bool_:
                return 1.0;
            case ir::dtype::int8:
                return 127.0;
            case ir::dtype::uint8:
                return 255.0;
            case ir::dtype::int16:
                return 32767.0;
            case ir::dtype::int32:
                return 2147483647.0;
            case ir::dtype::int64:
                return 4611686018427387904.0; // 2**62, converts back exactly
            default:
                return 1e300;
            }
        }

    } // namespace

    std::vector<std::vector<ir::promotion_operand>>
    promotion_variants(const std::vector<ir::promotion_operand>& known,
                       const std::vector<std::pair<size_t, ir::promotion_operand>>& unknown)
    {
        std::vector<std::vector<ir::promotion_operand>> out;
        // 0, the largest and the most negative value the operand's own
        // dtype can hold (a float32 scalar never needs more than float32;
        // a negative int8 scalar makes uint8 arrays int16).
        for (int variant = 0; variant < 3; ++variant)
        {
            std::vector<ir::promotion_operand> ops = known;
            for (const auto& [index, op] : unknown)
            {
                ir::promotion_operand v = op;
                const double sign = variant == 2 ? -1.0 : 1.0;
                if (op.what == ir::promotion_operand::kind::python_float)
                {
                    v.fval = variant == 0 ? 0.0 : sign * 1e300;
                }
                else if (ir::is_float(op.elem))
                {
                    v = ir::promotion_operand::zero_dim_float(
                        op.elem, variant == 0 ? 0.0 : sign * largest_of(op.elem));
                }
                else
                {
                    const auto top = static_cast<std::int64_t>(largest_of(op.elem));
                    const bool is_signed =
                        op.elem != ir::dtype::uint8 && op.elem != ir::dtype::bool_;
                    v = ir::promotion_operand::zero_dim_int(
                        op.elem, variant == 0   ? 0
                                 : variant == 1 ? top
                                                : (is_signed ? -top - 1 : 0));
                }
                ops[index] = v;
            }
            out.push_back(ops);
        }
        return out;
    }

    // NumPy's scalar arithmetic (np.int64(k) * 3) checks integer results for
    // overflow and division by zero and warns; a graph's integer ops wrap
    // silently, as NumPy's array loops do. Float scalars raise the IEEE flags
    // the runner watches, so only integer arithmetic between scalars is left
    // to CPython.
    void converter::refuse_checked_scalar_math(ir::op code, const cval& a, const cval& b,
                                               ir::dtype result, py::handle node)
    {
        const bool comparison = code == ir::op::EQ || code == ir::op::NE || code == ir::op::LT ||
                                code == ir::op::LE || code == ir::op::GT || code == ir::op::GE;
        if (ir::is_float(result) || result == ir::dtype::bool_ || comparison)
        {
            return;
        }
        bool numpy_scalar = false;
        for (const cval* x : {&a, &b})
        {
            if (x->k != cval::kind::array)
            {
                continue;
            }
            const array_entry& e = m_arrays[static_cast<size_t>(x->arr)];
            if (type_of(e.value).dims.rank() > 0)
            {
                return; // array arithmetic: NumPy's loops wrap too
            }
            numpy_scalar |= e.surf == surface::np_scalar;
        }
        if (numpy_scalar)
        {
            fail("integer arithmetic on NumPy scalars (NumPy checks it for overflow)", node);
        }
    }

} // namespace specula::engine::converter
