#include "backends/reference/scalar.hpp"

namespace specula::backends::reference
{
    std::size_t scalar_size(scalar s)
    {
        return visit_scalar(s, [](auto t) { return sizeof(typename decltype(t)::type); });
    }

    const char* scalar_name(scalar s)
    {
        static const char* const names[scalar_count] = {
            "bool",   "int8",   "int16",  "int32",   "int64",   "uint8",
            "uint16", "uint32", "uint64", "float32", "float64",
        };
        return names[static_cast<int>(s)];
    }

    bool is_float(scalar s)
    {
        return s == scalar::f32 || s == scalar::f64;
    }

    bool is_signed_int(scalar s)
    {
        return s >= scalar::i8 && s <= scalar::i64;
    }

    bool is_unsigned_int(scalar s)
    {
        return s >= scalar::u8 && s <= scalar::u64;
    }

    namespace
    {
        int int_bits(scalar s)
        {
            return static_cast<int>(scalar_size(s)) * 8;
        }

        scalar signed_of_bits(int bits)
        {
            switch (bits)
            {
            case 8:
                return scalar::i8;
            case 16:
                return scalar::i16;
            case 32:
                return scalar::i32;
            default:
                return scalar::i64;
            }
        }

        // Mixed signed/unsigned: the smallest signed type holding both, and
        // float64 once that would need more than 64 bits (NumPy's rule).
        scalar promote_mixed_int(scalar sgn, scalar uns)
        {
            int need = int_bits(uns) * 2;
            if (int_bits(sgn) > int_bits(uns))
            {
                return sgn;
            }
            return need > 64 ? scalar::f64 : signed_of_bits(need);
        }

        // float32 holds integers up to 16 bits exactly; wider ones go to float64.
        scalar promote_int_float(scalar i, scalar f)
        {
            if (f == scalar::f64 || int_bits(i) > 16)
            {
                return scalar::f64;
            }
            return scalar::f32;
        }
    } // namespace

    scalar promote(scalar a, scalar b)
    {
        if (a == b)
        {
            return a;
        }
        if (a == scalar::b1)
        {
            return b;
        }
        if (b == scalar::b1)
        {
            return a;
        }
        if (is_float(a) && is_float(b))
        {
            return scalar::f64;
        }
        if (is_float(a) || is_float(b))
        {
            return is_float(a) ? promote_int_float(b, a) : promote_int_float(a, b);
        }
        if (is_signed_int(a) == is_signed_int(b))
        {
            return int_bits(a) >= int_bits(b) ? a : b;
        }
        return is_signed_int(a) ? promote_mixed_int(a, b) : promote_mixed_int(b, a);
    }
} // namespace specula::backends::reference
