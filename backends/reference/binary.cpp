#include "backends/reference/elementwise.hpp"
#include "backends/reference/numpy_math.hpp"

#include <cmath>
#include <string>

namespace specula::backends::reference
{
    namespace
    {
        bool is_bitwise(binary_op op)
        {
            return op >= binary_op::bitwise_and && op <= binary_op::right_shift;
        }

        bool is_float_only(binary_op op)
        {
            return op == binary_op::true_divide || op == binary_op::copysign ||
                   op == binary_op::arctan2 || op == binary_op::hypot;
        }

        template <class T>
        bool supported(binary_op op)
        {
            if (is_predicate(op))
            {
                return true;
            }
            if constexpr (std::is_same_v<T, bool>)
            {
                // NumPy's bool loops: add is "or", multiply is "and".
                return op == binary_op::add || op == binary_op::multiply ||
                       op == binary_op::maximum || op == binary_op::minimum ||
                       op == binary_op::fmax || op == binary_op::fmin ||
                       op == binary_op::bitwise_and || op == binary_op::bitwise_or ||
                       op == binary_op::bitwise_xor;
            }
            else if constexpr (std::is_floating_point_v<T>)
            {
                return !is_bitwise(op);
            }
            else
            {
                return !is_float_only(op);
            }
        }

        bool bool_op(binary_op op, bool a, bool b)
        {
            switch (op)
            {
            case binary_op::add:
            case binary_op::maximum:
            case binary_op::fmax:
            case binary_op::bitwise_or:
                return a || b;
            case binary_op::bitwise_xor:
                return a != b;
            default:
                return a && b;
            }
        }

        template <class T>
        T int_op(binary_op op, T a, T b)
        {
            using namespace npmath;
            switch (op)
            {
            case binary_op::add:
                return wrap_add(a, b);
            case binary_op::subtract:
                return wrap_sub(a, b);
            case binary_op::multiply:
                return wrap_mul(a, b);
            case binary_op::floor_divide:
                return int_floor_div(a, b);
            case binary_op::remainder:
                return int_mod(a, b);
            case binary_op::fmod:
                return int_fmod(a, b);
            case binary_op::power:
                return int_pow(a, b);
            case binary_op::maximum:
            case binary_op::fmax:
                return maximum(a, b);
            case binary_op::minimum:
            case binary_op::fmin:
                return minimum(a, b);
            case binary_op::bitwise_and:
                return static_cast<T>(a & b);
            case binary_op::bitwise_or:
                return static_cast<T>(a | b);
            case binary_op::bitwise_xor:
                return static_cast<T>(a ^ b);
            case binary_op::left_shift:
                return left_shift(a, b);
            case binary_op::right_shift:
                return right_shift(a, b);
            default:
                return 0;
            }
        }

        template <class T>
        T float_op(binary_op op, T a, T b)
        {
            using namespace npmath;
            switch (op)
            {
            case binary_op::add:
                return a + b;
            case binary_op::subtract:
                return a - b;
            case binary_op::multiply:
                return a * b;
            case binary_op::true_divide:
                return a / b;
            case binary_op::floor_divide:
                return float_floor_div(a, b);
            case binary_op::remainder:
                return float_mod(a, b);
            case binary_op::fmod:
                return std::fmod(a, b);
            case binary_op::power:
                return std::pow(a, b);
            case binary_op::maximum:
                return maximum(a, b);
            case binary_op::minimum:
                return minimum(a, b);
            case binary_op::fmax:
                return npmath::fmax(a, b);
            case binary_op::fmin:
                return npmath::fmin(a, b);
            case binary_op::copysign:
                return std::copysign(a, b);
            case binary_op::arctan2:
                return std::atan2(a, b);
            case binary_op::hypot:
                return std::hypot(a, b);
            default:
                return 0;
            }
        }

        template <class T>
        bool compare_op(binary_op op, T a, T b)
        {
            switch (op)
            {
            case binary_op::equal:
                return a == b;
            case binary_op::not_equal:
                return a != b;
            case binary_op::less:
                return a < b;
            case binary_op::less_equal:
                return a <= b;
            case binary_op::greater:
                return a > b;
            case binary_op::greater_equal:
                return a >= b;
            case binary_op::logical_and:
                return a != T(0) && b != T(0);
            case binary_op::logical_or:
                return a != T(0) || b != T(0);
            default:
                return (a != T(0)) != (b != T(0));
            }
        }

        template <class T>
        T value_op(binary_op op, T a, T b)
        {
            if constexpr (std::is_same_v<T, bool>)
            {
                return bool_op(op, a, b);
            }
            else if constexpr (std::is_floating_point_v<T>)
            {
                return float_op(op, a, b);
            }
            else
            {
                return int_op(op, a, b);
            }
        }

        // NumPy raises for integer ** negative integer; so do we, before
        // writing anything.
        template <class T>
        bool has_negative(const strided_view& v, const strided_view& out)
        {
            bool found = false;
            for_each_element<1>(out.rank, out.shape.data(), {v.data}, {v.strides.data()},
                                [&](const auto& p) { found |= load_as<T>(p[0], v.type) < T(0); });
            return found;
        }

        template <class T>
        status binary_typed(binary_op op, const strided_view& a, const strided_view& b,
                            const strided_view& out)
        {
            const std::string name(name_of(op));
            if (!supported<T>(op))
            {
                return status::unimplemented(name + " on " + scalar_name(scalar_of<T>()));
            }
            const bool pred = is_predicate(op);
            if (out.type != (pred ? scalar::b1 : scalar_of<T>()))
            {
                return status::invalid(name + ": wrong output dtype");
            }
            strided_view va;
            strided_view vb;
            if (!broadcast_view(a, out.rank, out.shape.data(), va) ||
                !broadcast_view(b, out.rank, out.shape.data(), vb))
            {
                return status::invalid(name + ": shapes do not broadcast");
            }
            if constexpr (std::is_signed_v<T> && std::is_integral_v<T>)
            {
                if (op == binary_op::power && has_negative<T>(vb, out))
                {
                    return status::runtime("Integers to negative integer powers are not allowed.");
                }
            }
            for_each_element<3>(out.rank, out.shape.data(), {out.data, va.data, vb.data},
                                {out.strides.data(), va.strides.data(), vb.strides.data()},
                                [&](const auto& p)
                                {
                                    const T x = load_as<T>(p[1], va.type);
                                    const T y = load_as<T>(p[2], vb.type);
                                    if (pred)
                                    {
                                        store<bool>(p[0], compare_op(op, x, y));
                                    }
                                    else
                                    {
                                        store<T>(p[0], value_op(op, x, y));
                                    }
                                });
            return status::ok();
        }
    } // namespace

    status run_binary(binary_op op, const strided_view& a, const strided_view& b,
                      const strided_view& out)
    {
        const scalar compute = is_predicate(op) ? promote(a.type, b.type) : out.type;
        return visit_scalar(compute, [&](auto t)
                            { return binary_typed<typename decltype(t)::type>(op, a, b, out); });
    }
} // namespace specula::backends::reference
