#include "ir/passes/fold_constants.hpp"

#include <cmath>
#include <cstring>
#include <optional>

#include "ir/builder.hpp"
#include "ir/infer.hpp"

namespace specula::ir
{
    namespace
    {
        constexpr std::int64_t g_max_elements = 4096;
        using wide_int = __int128;

        bool fits(wide_int v, dtype t)
        {
            switch (t)
            {
            case dtype::bool_:
                return v == 0 || v == 1;
            case dtype::int8:
                return v >= -128 && v <= 127;
            case dtype::int16:
                return v >= -32768 && v <= 32767;
            case dtype::int32:
                return v >= INT32_MIN && v <= INT32_MAX;
            case dtype::int64:
                return v >= INT64_MIN && v <= INT64_MAX;
            case dtype::uint8:
                return v >= 0 && v <= 255;
            default:
                return false;
            }
        }

        bool same_bits(double a, double b)
        {
            return std::memcmp(&a, &b, sizeof a) == 0;
        }

        // Rounds to the precision of t (float32 values live widened in a double).
        double round_to(dtype t, double v)
        {
            return t == dtype::float32 ? static_cast<double>(static_cast<float>(v)) : v;
        }

        std::optional<scalar> int_binary(op code, wide_int a, wide_int b, dtype t)
        {
            wide_int r = 0;
            switch (code)
            {
            case op::ADD:
                r = a + b;
                break;
            case op::SUB:
                r = a - b;
                break;
            case op::MUL:
                r = a * b;
                break;
            case op::MAXIMUM:
                r = a > b ? a : b;
                break;
            case op::MINIMUM:
                r = a < b ? a : b;
                break;
            case op::FLOORDIV:
            case op::MOD:
            {
                if (b == 0)
                {
                    return std::nullopt;
                }
                wide_int q = a / b;
                if ((a % b != 0) && ((a < 0) != (b < 0)))
                {
                    --q;
                }
                r = code == op::FLOORDIV ? q : a - q * b;
                break;
            }
            case op::BITWISE_AND:
                r = a & b;
                break;
            case op::BITWISE_OR:
                r = a | b;
                break;
            case op::BITWISE_XOR:
                r = a ^ b;
                break;
            case op::LEFT_SHIFT:
            case op::RIGHT_SHIFT:
                if (b < 0 || b >= itemsize(t) * 8)
                {
                    return std::nullopt;
                }
                r = code == op::LEFT_SHIFT ? a * (static_cast<wide_int>(1) << static_cast<int>(b))
                                           : a >> static_cast<int>(b);
                break;
            default:
                return std::nullopt;
            }
            if (!fits(r, t))
            {
                return std::nullopt;
            }
            return scalar::of_int(t, static_cast<std::int64_t>(r));
        }

        // Comparisons of doubles and of wide integers: exact for both.
        template <class T>
        std::optional<bool> compare(op code, T a, T b)
        {
            switch (code)
            {
            case op::EQ:
                return a == b;
            case op::NE:
                return a != b;
            case op::LT:
                return a < b;
            case op::LE:
                return a <= b;
            case op::GT:
                return a > b;
            case op::GE:
                return a >= b;
            default:
                return std::nullopt;
            }
        }

        std::optional<scalar> float_binary(op code, double a, double b, dtype t)
        {
            if (!std::isfinite(a) || !std::isfinite(b))
            {
                return std::nullopt;
            }
            double r = 0;
            switch (code)
            {
            case op::ADD:
                r = round_to(t, t == dtype::float32 ? double(float(a) + float(b)) : a + b);
                break;
            case op::SUB:
                r = round_to(t, t == dtype::float32 ? double(float(a) - float(b)) : a - b);
                break;
            case op::MUL:
                r = round_to(t, t == dtype::float32 ? double(float(a) * float(b)) : a * b);
                break;
            case op::DIV:
                if (b == 0.0)
                {
                    return std::nullopt;
                }
                r = round_to(t, t == dtype::float32 ? double(float(a) / float(b)) : a / b);
                break;
            case op::MAXIMUM:
            case op::MINIMUM:
                if (a == b && !same_bits(a, b))
                {
                    return std::nullopt;
                }
                r = (code == op::MAXIMUM) == (a >= b) ? a : b;
                break;
            default:
                return std::nullopt;
            }
            if (!std::isfinite(r))
            {
                return std::nullopt;
            }
            return scalar::of_float(t, r);
        }

        std::optional<scalar> binary(op code, const scalar& x, const scalar& y, dtype loop,
                                     dtype out)
        {
            const bool logical =
                code == op::LOGICAL_AND || code == op::LOGICAL_OR || code == op::LOGICAL_XOR;
            if (logical)
            {
                const bool a = x.as_double() != 0.0;
                const bool b = y.as_double() != 0.0;
                const bool r = code == op::LOGICAL_AND  ? (a && b)
                               : code == op::LOGICAL_OR ? (a || b)
                                                        : (a != b);
                return scalar::of_bool(r);
            }
            if (is_float(loop))
            {
                const double a = round_to(loop, x.as_double());
                const double b = round_to(loop, y.as_double());
                if (out == dtype::bool_)
                {
                    auto c = compare(code, a, b);
                    return c ? std::optional<scalar>(scalar::of_bool(*c)) : std::nullopt;
                }
                return float_binary(code, a, b, out);
            }
            if (is_float(x.elem) || is_float(y.elem))
            {
                return std::nullopt;
            }
            if (out == dtype::bool_ && loop != dtype::bool_)
            {
                auto c = compare<wide_int>(code, x.ival, y.ival);
                return c ? std::optional<scalar>(scalar::of_bool(*c)) : std::nullopt;
            }
            if (loop == dtype::bool_)
            {
                auto c = compare<wide_int>(code, x.ival, y.ival);
                if (c)
                {
                    return scalar::of_bool(*c);
                }
            }
            auto r = int_binary(code, x.ival, y.ival, out);
            if (r && out == dtype::bool_)
            {
                r = scalar::of_bool(r->ival != 0);
            }
            return r;
        }

        std::optional<scalar> float_unary(op code, double a, dtype t)
        {
            if (!std::isfinite(a))
            {
                return std::nullopt;
            }
            double r = 0;
            const bool f32 = t == dtype::float32;
            switch (code)
            {
            case op::NEG:
                r = -a;
                break;
            case op::ABS:
                r = std::fabs(a);
                break;
            case op::SQRT:
                r = f32 ? double(std::sqrt(float(a))) : std::sqrt(a);
                break;
            case op::SQUARE:
                r = f32 ? double(float(a) * float(a)) : a * a;
                break;
            case op::RECIPROCAL:
                if (a == 0.0)
                {
                    return std::nullopt;
                }
                r = f32 ? double(1.0f / float(a)) : 1.0 / a;
                break;
            case op::FLOOR:
                r = std::floor(a);
                break;
            case op::CEIL:
                r = std::ceil(a);
                break;
            case op::RINT:
                r = std::nearbyint(a);
                break;
            default:
                return std::nullopt;
            }
            if (!std::isfinite(r))
            {
                return std::nullopt;
            }
            return scalar::of_float(t, r);
        }

        std::optional<scalar> cast_value(const scalar& x, dtype to)
        {
            if (to == dtype::bool_)
            {
                return scalar::of_bool(x.as_double() != 0.0);
            }
            if (!is_float(x.elem))
            {
                if (to == dtype::float32)
                {
                    // Directly, not via double: int64 -> double -> float rounds twice.
                    return scalar::of_float(to, static_cast<double>(static_cast<float>(x.ival)));
                }
                if (to == dtype::float64)
                {
                    return scalar::of_float(to, static_cast<double>(x.ival));
                }
                return fits(x.ival, to) ? std::optional<scalar>(scalar::of_int(to, x.ival))
                                        : std::nullopt;
            }
            if (!std::isfinite(x.fval))
            {
                return std::nullopt;
            }
            if (is_float(to))
            {
                const double r = round_to(to, x.fval);
                return std::isfinite(r) ? std::optional<scalar>(scalar::of_float(to, r))
                                        : std::nullopt;
            }
            const double t = std::trunc(x.fval);
            if (t < -9.2e18 || t > 9.2e18 || !fits(static_cast<wide_int>(t), to))
            {
                return std::nullopt;
            }
            return scalar::of_int(to, static_cast<std::int64_t>(t));
        }

        std::optional<scalar> unary(op code, const scalar& x, dtype out, const node& n)
        {
            if (code == op::CAST)
            {
                return cast_value(x, n.attr_as<cast_attr>().to);
            }
            if (code == op::LOGICAL_NOT)
            {
                return scalar::of_bool(x.as_double() == 0.0);
            }
            if (is_float(out))
            {
                return float_unary(code, round_to(out, x.as_double()), out);
            }
            if (is_float(x.elem))
            {
                return std::nullopt;
            }
            const wide_int a = x.ival;
            wide_int r = 0;
            switch (code)
            {
            case op::NEG:
                r = -a;
                break;
            case op::ABS:
                r = a < 0 ? -a : a;
                break;
            case op::SIGN:
                r = (a > 0) - (a < 0);
                break;
            case op::SQUARE:
                r = a * a;
                break;
            default:
                return std::nullopt;
            }
            if (!fits(r, out))
            {
                return std::nullopt;
            }
            return out == dtype::bool_ ? scalar::of_bool(r != 0)
                                       : scalar::of_int(out, static_cast<std::int64_t>(r));
        }
    } // namespace

    namespace detail
    {
        // Offset of the element of `in` that broadcasts to output flat index i.
        std::int64_t broadcast_offset(const std::vector<std::int64_t>& out_sizes,
                                      const std::vector<std::int64_t>& in_sizes, std::int64_t i)
        {
            std::int64_t offset = 0;
            std::int64_t stride = 1;
            const int shift = static_cast<int>(out_sizes.size() - in_sizes.size());
            for (int k = static_cast<int>(out_sizes.size()) - 1; k >= 0; --k)
            {
                const std::int64_t idx = i % out_sizes[static_cast<size_t>(k)];
                i /= out_sizes[static_cast<size_t>(k)];
                const int j = k - shift;
                if (j < 0)
                {
                    continue;
                }
                const std::int64_t size = in_sizes[static_cast<size_t>(j)];
                offset += (size == 1 ? 0 : idx) * stride;
                stride *= size;
            }
            return offset;
        }

        std::optional<scalar> eval_element(const node& n, const std::vector<scalar>& args,
                                           dtype loop, dtype out)
        {
            if (n.code == op::WHERE)
            {
                const scalar& pick = args[0].as_double() != 0.0 ? args[1] : args[2];
                return cast_value(pick, out);
            }
            if (args.size() == 1)
            {
                return unary(n.code, args[0], out, n);
            }
            return binary(n.code, args[0], args[1], loop, out);
        }

        std::optional<constant_attr> fold_elementwise(const graph& g, const node& n)
        {
            const value_type& out_t = g.type_of(n.outputs[0]);
            const auto out_sizes = out_t.dims.static_sizes();
            const auto count = out_t.dims.num_elements();
            if (!out_sizes || !count || *count > g_max_elements || n.code == op::CLIP)
            {
                return std::nullopt;
            }
            std::vector<const constant_attr*> ins;
            std::vector<dtype> in_types;
            for (value_id v : n.inputs)
            {
                ins.push_back(&g.get_node(g.get(v).def).attr_as<constant_attr>());
                in_types.push_back(ins.back()->elem);
            }
            // Comparisons compute in the promoted input dtype, not the bool result.
            std::optional<dtype> loop = in_types.size() == 2
                                            ? elementwise_dtype(op::MAXIMUM, in_types)
                                            : std::optional<dtype>(out_t.elem);
            if (n.code == op::DIV && !is_float(in_types[0]) && !is_float(in_types[1]))
            {
                loop = dtype::float64;
            }
            if (!loop)
            {
                return std::nullopt;
            }
            std::vector<scalar> results;
            for (std::int64_t i = 0; i < *count; ++i)
            {
                std::vector<scalar> args;
                for (const constant_attr* c : ins)
                {
                    args.push_back(
                        c->element(broadcast_offset(*out_sizes, *c->dims.static_sizes(), i)));
                }
                auto r = eval_element(n, args, *loop, out_t.elem);
                if (!r)
                {
                    return std::nullopt;
                }
                results.push_back(*r);
            }
            return constant_attr::from_values(out_t.elem, out_t.dims, results);
        }

        std::optional<constant_attr> fold_node(const graph& g, const node& n)
        {
            if (n.code == op::SHAPE_DIM)
            {
                const shape& s = g.type_of(n.inputs[0]).dims;
                const auto axis = normalize_axis(n.attr_as<axis_attr>().axis, s.rank());
                if (!axis || !s[*axis].is_static())
                {
                    return std::nullopt;
                }
                return constant_attr::from_scalar(scalar::of_int(dtype::int64, s[*axis].size()));
            }
            for (value_id v : n.inputs)
            {
                const value& val = g.get(v);
                if (val.def == no_id || g.get_node(val.def).code != op::CONSTANT)
                {
                    return std::nullopt;
                }
            }
            if (n.inputs.empty())
            {
                return std::nullopt;
            }
            if (n.code == op::RESHAPE || n.code == op::EXPAND_DIMS || n.code == op::SQUEEZE)
            {
                constant_attr c = g.get_node(g.get(n.inputs[0]).def).attr_as<constant_attr>();
                c.dims = g.type_of(n.outputs[0]).dims;
                return c;
            }
            if (!has(n.code, prop::ELEMENTWISE))
            {
                return std::nullopt;
            }
            return fold_elementwise(g, n);
        }
    } // namespace detail

    namespace
    {
        int fold_region(graph& g, region_id r)
        {
            int folded = 0;
            const std::vector<node_id> nodes = g.get_region(r).nodes;
            for (node_id id : nodes)
            {
                for (region_id child : g.get_node(id).regions)
                {
                    folded += fold_region(g, child);
                }
                auto c = detail::fold_node(g, g.get_node(id));
                if (!c)
                {
                    continue;
                }
                builder b(g);
                b.set_insertion_before(id);
                const value_type t = g.type_of(g.get_node(id).outputs[0]);
                auto outs =
                    b.create(op::CONSTANT, {}, std::move(*c), {}, std::vector<value_type>{t});
                g.replace_all_uses(g.get_node(id).outputs[0], outs[0]);
                g.erase_node(id);
                ++folded;
            }
            return folded;
        }
    } // namespace

    int fold_constants(graph& g)
    {
        return fold_region(g, g.body());
    }
} // namespace specula::ir
