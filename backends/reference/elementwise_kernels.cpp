// Elementwise IR ops onto the reference elementwise kernels.

#include "backends/reference/elementwise.hpp"
#include "backends/reference/reference_backend.hpp"
#include "backends/reference/view.hpp"

namespace specula::backends::reference
{
    namespace
    {
        std::optional<unary_op> unary_of(ir::op code)
        {
            switch (code)
            {
            case ir::op::NEG:
                return unary_op::negative;
            case ir::op::ABS:
                return unary_op::absolute;
            case ir::op::SIGN:
                return unary_op::sign;
            case ir::op::EXP:
                return unary_op::exp;
            case ir::op::EXPM1:
                return unary_op::expm1;
            case ir::op::LOG:
                return unary_op::log;
            case ir::op::LOG1P:
                return unary_op::log1p;
            case ir::op::SQRT:
                return unary_op::sqrt;
            case ir::op::SQUARE:
                return unary_op::square;
            case ir::op::RECIPROCAL:
                return unary_op::reciprocal;
            case ir::op::TANH:
                return unary_op::tanh;
            case ir::op::SIN:
                return unary_op::sin;
            case ir::op::COS:
                return unary_op::cos;
            case ir::op::FLOOR:
                return unary_op::floor;
            case ir::op::CEIL:
                return unary_op::ceil;
            case ir::op::RINT:
                return unary_op::rint;
            case ir::op::LOGICAL_NOT:
                return unary_op::logical_not;
            default:
                return std::nullopt;
            }
        }

        std::optional<binary_op> binary_of(ir::op code)
        {
            switch (code)
            {
            case ir::op::ADD:
                return binary_op::add;
            case ir::op::SUB:
                return binary_op::subtract;
            case ir::op::MUL:
                return binary_op::multiply;
            case ir::op::DIV:
                return binary_op::true_divide;
            case ir::op::FLOORDIV:
                return binary_op::floor_divide;
            case ir::op::MOD:
                return binary_op::remainder;
            case ir::op::POW:
                return binary_op::power;
            case ir::op::MAXIMUM:
                return binary_op::maximum;
            case ir::op::MINIMUM:
                return binary_op::minimum;
            case ir::op::EQ:
                return binary_op::equal;
            case ir::op::NE:
                return binary_op::not_equal;
            case ir::op::LT:
                return binary_op::less;
            case ir::op::LE:
                return binary_op::less_equal;
            case ir::op::GT:
                return binary_op::greater;
            case ir::op::GE:
                return binary_op::greater_equal;
            case ir::op::LOGICAL_AND:
                return binary_op::logical_and;
            case ir::op::LOGICAL_OR:
                return binary_op::logical_or;
            case ir::op::LOGICAL_XOR:
                return binary_op::logical_xor;
            case ir::op::BITWISE_AND:
                return binary_op::bitwise_and;
            case ir::op::BITWISE_OR:
                return binary_op::bitwise_or;
            case ir::op::BITWISE_XOR:
                return binary_op::bitwise_xor;
            case ir::op::LEFT_SHIFT:
                return binary_op::left_shift;
            case ir::op::RIGHT_SHIFT:
                return binary_op::right_shift;
            default:
                return std::nullopt;
            }
        }

        // np.clip is minimum(maximum(x, lo), hi) in the result dtype, with
        // the same NaN rules as np.maximum / np.minimum.
        status run_clip(const kernel_io& io)
        {
            const strided_view out = view_of(io.out(0));
            status st = run_binary(binary_op::maximum, view_of(io.in(0)), view_of(io.in(1)), out);
            return st ? run_binary(binary_op::minimum, out, view_of(io.in(2)), out) : st;
        }
    } // namespace

    result<std::unique_ptr<kernel>> make_elementwise_kernel(const ir::graph&, const ir::node& n)
    {
        if (auto u = unary_of(n.code))
        {
            const unary_op op = *u;
            return make_kernel([op](const kernel_io& io)
                               { return run_unary(op, view_of(io.in(0)), view_of(io.out(0))); });
        }
        if (auto b = binary_of(n.code))
        {
            const binary_op op = *b;
            return make_kernel(
                [op](const kernel_io& io) {
                    return run_binary(op, view_of(io.in(0)), view_of(io.in(1)), view_of(io.out(0)));
                });
        }
        switch (n.code)
        {
        case ir::op::CAST:
            return make_kernel([](const kernel_io& io)
                               { return run_cast(view_of(io.in(0)), view_of(io.out(0))); });
        case ir::op::WHERE:
            return make_kernel(
                [](const kernel_io& io) {
                    return run_where(view_of(io.in(0)), view_of(io.in(1)), view_of(io.in(2)),
                                     view_of(io.out(0)));
                });
        case ir::op::CLIP:
            return make_kernel(run_clip);
        default:
            return status::unimplemented("not elementwise");
        }
    }
} // namespace specula::backends::reference
