#include "ir/dtype.hpp"

#include <algorithm>
#include <cmath>

namespace specula::ir
{
    namespace
    {
        const std::string_view g_names[num_dtypes] = {"bool",  "int8",  "int16",   "int32",
                                                      "int64", "uint8", "float32", "float64"};
        const std::string_view g_short[num_dtypes] = {"b1",  "i8", "i16", "i32",
                                                      "i64", "u8", "f32", "f64"};

        // NumPy's wider lattice, needed because value-based casting can pass through
        // types Specula does not support (uint16 for 300, float16 for 1.5).
        enum class kind : std::uint8_t
        {
            b,
            i,
            u,
            f
        };
        struct wide
        {
            kind k;
            int size; // bytes
        };

        wide widen(dtype t)
        {
            switch (t)
            {
            case dtype::bool_:
                return {kind::b, 1};
            case dtype::int8:
                return {kind::i, 1};
            case dtype::int16:
                return {kind::i, 2};
            case dtype::int32:
                return {kind::i, 4};
            case dtype::int64:
                return {kind::i, 8};
            case dtype::uint8:
                return {kind::u, 1};
            case dtype::float32:
                return {kind::f, 4};
            case dtype::float64:
                return {kind::f, 8};
            }
            return {kind::f, 8};
        }

        std::optional<dtype> narrow(wide w)
        {
            switch (w.k)
            {
            case kind::b:
                return dtype::bool_;
            case kind::i:
                switch (w.size)
                {
                case 1:
                    return dtype::int8;
                case 2:
                    return dtype::int16;
                case 4:
                    return dtype::int32;
                case 8:
                    return dtype::int64;
                default:
                    return std::nullopt;
                }
            case kind::u:
                return w.size == 1 ? std::optional<dtype>(dtype::uint8) : std::nullopt;
            case kind::f:
                if (w.size == 4)
                {
                    return dtype::float32;
                }
                return w.size == 8 ? std::optional<dtype>(dtype::float64) : std::nullopt;
            }
            return std::nullopt;
        }

        // Smallest float that holds every integer of `size` bytes "safely" per NumPy.
        int float_size_for_int(int size)
        {
            return size == 1 ? 2 : size == 2 ? 4 : 8;
        }

        wide promote_wide(wide a, wide b)
        {
            if (a.k == kind::b)
            {
                return b;
            }
            if (b.k == kind::b)
            {
                return a;
            }
            if (a.k == b.k)
            {
                return {a.k, std::max(a.size, b.size)};
            }
            if (a.k == kind::f || b.k == kind::f)
            {
                const wide fl = a.k == kind::f ? a : b;
                const wide in = a.k == kind::f ? b : a;
                return {kind::f, std::max(fl.size, float_size_for_int(in.size))};
            }
            const wide s = a.k == kind::i ? a : b;
            const wide u = a.k == kind::i ? b : a;
            if (s.size > u.size)
            {
                return s;
            }
            if (u.size == 8)
            {
                return {kind::f, 8};
            }
            return {kind::i, u.size * 2};
        }

        int category(kind k)
        {
            return k == kind::b ? 0 : k == kind::f ? 2 : 1;
        }

        // NumPy's min_scalar_type for an integer value; small_unsigned marks a
        // non-negative value that also fits the signed type of the same size.
        wide min_int_type(std::int64_t v, bool& small_unsigned)
        {
            small_unsigned = false;
            if (v >= 0)
            {
                const std::uint64_t u = static_cast<std::uint64_t>(v);
                const int size = u <= 0xffu ? 1 : u <= 0xffffu ? 2 : u <= 0xffffffffu ? 4 : 8;
                small_unsigned = (u >> (size * 8 - 1)) == 0;
                return {kind::u, size};
            }
            const int size = v >= -128 ? 1 : v >= -32768 ? 2 : v >= -2147483648LL ? 4 : 8;
            return {kind::i, size};
        }

        wide min_float_type(double v)
        {
            // Infinities and NaN exist in float16, so NumPy picks the smallest type.
            if (!std::isfinite(v) || (v > -65000.0 && v < 65000.0))
            {
                return {kind::f, 2};
            }
            if (v > -3.4e38 && v < 3.4e38)
            {
                return {kind::f, 4};
            }
            return {kind::f, 8};
        }

        bool is_scalar(const promotion_operand& o)
        {
            return o.what != promotion_operand::kind::array &&
                   !(o.what == promotion_operand::kind::zero_dim && !o.has_value);
        }

        // The operand's own type, ignoring its value.
        wide plain_type(const promotion_operand& o)
        {
            switch (o.what)
            {
            case promotion_operand::kind::python_bool:
                return {kind::b, 1};
            case promotion_operand::kind::python_int:
                return {kind::i, 8};
            case promotion_operand::kind::python_float:
                return {kind::f, 8};
            default:
                return widen(o.elem);
            }
        }

        struct min_type
        {
            wide type;
            bool small_unsigned;
        };

        min_type value_type_of(const promotion_operand& o)
        {
            const wide plain = plain_type(o);
            bool small = false;
            if (plain.k == kind::b)
            {
                return {plain, false};
            }
            if (plain.k == kind::f)
            {
                // min_scalar_type only looks at types smaller than the value's
                // own: a float32 scalar near its maximum stays float32.
                const wide w = min_float_type(o.fval);
                return {w.size <= plain.size ? w : plain, false};
            }
            const wide w = min_int_type(o.ival, small);
            return {w, small};
        }
    } // namespace

    std::string_view dtype_name(dtype t)
    {
        return g_names[static_cast<int>(t)];
    }
    std::string_view dtype_short_name(dtype t)
    {
        return g_short[static_cast<int>(t)];
    }

    std::optional<dtype> dtype_from_name(std::string_view name)
    {
        for (dtype t : all_dtypes)
        {
            if (dtype_name(t) == name || dtype_short_name(t) == name)
            {
                return t;
            }
        }
        return std::nullopt;
    }

    bool is_bool(dtype t)
    {
        return t == dtype::bool_;
    }
    bool is_integer(dtype t)
    {
        return is_signed_integer(t) || is_unsigned_integer(t);
    }
    bool is_signed_integer(dtype t)
    {
        return t == dtype::int8 || t == dtype::int16 || t == dtype::int32 || t == dtype::int64;
    }
    bool is_unsigned_integer(dtype t)
    {
        return t == dtype::uint8;
    }
    bool is_float(dtype t)
    {
        return t == dtype::float32 || t == dtype::float64;
    }

    dtype promote_types(dtype a, dtype b)
    {
        return narrow(promote_wide(widen(a), widen(b))).value_or(dtype::float64);
    }

    promotion_operand promotion_operand::array_of(dtype t)
    {
        promotion_operand o;
        o.what = kind::array;
        o.elem = t;
        return o;
    }
    promotion_operand promotion_operand::zero_dim_int(dtype t, std::int64_t v)
    {
        promotion_operand o;
        o.what = kind::zero_dim;
        o.elem = t;
        o.ival = v;
        return o;
    }
    promotion_operand promotion_operand::zero_dim_float(dtype t, double v)
    {
        promotion_operand o;
        o.what = kind::zero_dim;
        o.elem = t;
        o.fval = v;
        return o;
    }
    promotion_operand promotion_operand::py_bool(bool v)
    {
        promotion_operand o;
        o.what = kind::python_bool;
        o.elem = dtype::bool_;
        o.ival = v ? 1 : 0;
        return o;
    }
    promotion_operand promotion_operand::py_int(std::int64_t v)
    {
        promotion_operand o;
        o.what = kind::python_int;
        o.elem = dtype::int64;
        o.ival = v;
        return o;
    }
    promotion_operand promotion_operand::py_float(double v)
    {
        promotion_operand o;
        o.what = kind::python_float;
        o.elem = dtype::float64;
        o.fval = v;
        return o;
    }

    std::optional<dtype> result_type(const std::vector<promotion_operand>& operands)
    {
        if (operands.empty())
        {
            return std::nullopt;
        }
        int max_array_cat = -1;
        int max_scalar_cat = -1;
        for (const auto& o : operands)
        {
            const int cat = category(plain_type(o).k);
            int& slot = is_scalar(o) ? max_scalar_cat : max_array_cat;
            slot = std::max(slot, cat);
        }
        // NumPy 1.24: values only matter when arrays are present and no scalar is of a
        // higher category than every array.
        const bool use_values = max_array_cat >= 0 && max_scalar_cat <= max_array_cat;
        wide acc = plain_type(operands[0]);
        bool first = true;
        bool any_signed_array = false;
        for (const auto& o : operands)
        {
            if (!is_scalar(o) && plain_type(o).k == kind::i)
            {
                any_signed_array = true;
            }
        }
        for (const auto& o : operands)
        {
            wide t = plain_type(o);
            if (use_values && is_scalar(o))
            {
                const min_type m = value_type_of(o);
                t = m.type;
                // A small non-negative scalar promotes with signed types as signed.
                if (m.small_unsigned && any_signed_array)
                {
                    t.k = kind::i;
                }
            }
            acc = first ? t : promote_wide(acc, t);
            first = false;
        }
        return narrow(acc);
    }
} // namespace specula::ir
