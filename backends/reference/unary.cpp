#include "backends/reference/elementwise.hpp"
#include "backends/reference/numpy_math.hpp"

#include <cmath>
#include <string>

namespace specula::backends::reference
{
    namespace
    {
        bool is_float_math(unary_op op)
        {
            return op >= unary_op::sqrt && op <= unary_op::rint;
        }

        bool is_transcendental(unary_op op)
        {
            return !is_exact(op);
        }

        template <class T>
        bool supported(unary_op op)
        {
            if constexpr (std::is_same_v<T, bool>)
            {
                return op == unary_op::positive || op == unary_op::absolute ||
                       op == unary_op::invert || is_predicate(op);
            }
            else if constexpr (std::is_floating_point_v<T>)
            {
                return op != unary_op::invert;
            }
            else
            {
                // NumPy computes these in floating point: the graph casts first.
                return !is_float_math(op) && !is_transcendental(op);
            }
        }

        template <class T>
        T float_math(unary_op op, T v)
        {
            switch (op)
            {
            case unary_op::sqrt:
                return std::sqrt(v);
            case unary_op::floor:
                return std::floor(v);
            case unary_op::ceil:
                return std::ceil(v);
            case unary_op::trunc:
                return std::trunc(v);
            case unary_op::rint:
                return std::nearbyint(v);
            case unary_op::exp:
                return std::exp(v);
            case unary_op::exp2:
                return std::exp2(v);
            case unary_op::expm1:
                return std::expm1(v);
            case unary_op::log:
                return std::log(v);
            case unary_op::log2:
                return std::log2(v);
            case unary_op::log10:
                return std::log10(v);
            case unary_op::log1p:
                return std::log1p(v);
            case unary_op::sin:
                return std::sin(v);
            case unary_op::cos:
                return std::cos(v);
            case unary_op::tan:
                return std::tan(v);
            case unary_op::arcsin:
                return std::asin(v);
            case unary_op::arccos:
                return std::acos(v);
            case unary_op::arctan:
                return std::atan(v);
            case unary_op::sinh:
                return std::sinh(v);
            case unary_op::cosh:
                return std::cosh(v);
            case unary_op::tanh:
                return std::tanh(v);
            case unary_op::arcsinh:
                return std::asinh(v);
            case unary_op::arccosh:
                return std::acosh(v);
            case unary_op::arctanh:
                return std::atanh(v);
            case unary_op::cbrt:
                return std::cbrt(v);
            default:
                return v;
            }
        }

        // NumPy's integer reciprocal is C's (T)(1.0 / v); 1/0 is undefined
        // there, we answer 0.
        template <class T>
        T int_reciprocal(T v)
        {
            if (v == 0)
            {
                return 0;
            }
            return static_cast<T>(1.0 / static_cast<double>(v));
        }

        template <class T>
        T value_op(unary_op op, T v)
        {
            using namespace npmath;
            switch (op)
            {
            case unary_op::negative:
                return wrap_neg(v);
            case unary_op::positive:
                return v;
            case unary_op::absolute:
                return absolute(v);
            case unary_op::sign:
                return sign(v);
            case unary_op::square:
                return wrap_mul(v, v);
            case unary_op::reciprocal:
                if constexpr (std::is_floating_point_v<T>)
                {
                    return T(1) / v;
                }
                else
                {
                    return int_reciprocal(v);
                }
            case unary_op::invert:
                if constexpr (std::is_same_v<T, bool>)
                {
                    return !v;
                }
                else if constexpr (std::is_integral_v<T>)
                {
                    return static_cast<T>(~v);
                }
                return v;
            default:
                if constexpr (std::is_floating_point_v<T>)
                {
                    return float_math(op, v);
                }
                return v;
            }
        }

        template <class T>
        bool predicate_op(unary_op op, T v)
        {
            switch (op)
            {
            case unary_op::logical_not:
                return v == T(0);
            case unary_op::isnan:
                return npmath::is_nan(v);
            case unary_op::isinf:
                if constexpr (std::is_floating_point_v<T>)
                {
                    return std::isinf(v);
                }
                return false;
            case unary_op::isfinite:
                if constexpr (std::is_floating_point_v<T>)
                {
                    return std::isfinite(v);
                }
                return true;
            case unary_op::signbit:
                if constexpr (std::is_floating_point_v<T>)
                {
                    return std::signbit(v);
                }
                else if constexpr (std::is_signed_v<T>)
                {
                    return v < 0;
                }
                return false;
            default:
                return false;
            }
        }

        template <class T>
        status unary_typed(unary_op op, const strided_view& in, const strided_view& out)
        {
            if (!supported<T>(op))
            {
                return status::unimplemented(std::string(name_of(op)) + " on " +
                                             scalar_name(scalar_of<T>()));
            }
            const bool pred = is_predicate(op);
            if (out.type != (pred ? scalar::b1 : scalar_of<T>()))
            {
                return status::invalid(std::string(name_of(op)) + ": wrong output dtype");
            }
            strided_view src;
            if (!broadcast_view(in, out.rank, out.shape.data(), src))
            {
                return status::invalid(std::string(name_of(op)) + ": shapes do not broadcast");
            }
            for_each_element<2>(out.rank, out.shape.data(), {out.data, src.data},
                                {out.strides.data(), src.strides.data()},
                                [&](const auto& p)
                                {
                                    const T v = load_as<T>(p[1], src.type);
                                    if (pred)
                                    {
                                        store<bool>(p[0], predicate_op(op, v));
                                    }
                                    else
                                    {
                                        store<T>(p[0], value_op(op, v));
                                    }
                                });
            return status::ok();
        }
    } // namespace

    status run_unary(unary_op op, const strided_view& in, const strided_view& out)
    {
        const scalar compute = is_predicate(op) ? in.type : out.type;
        return visit_scalar(compute, [&](auto t)
                            { return unary_typed<typename decltype(t)::type>(op, in, out); });
    }
} // namespace specula::backends::reference
