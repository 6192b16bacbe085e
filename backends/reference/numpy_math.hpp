#pragma once

// Scalar semantics of NumPy 1.24's ufunc inner loops, one function per rule
// that differs from plain C++: Python-style integer division with x/0 == 0,
// npy_divmod for floats, wrapping integer arithmetic, saturating shifts, NaN
// propagation in maximum/minimum. Every function is total (no UB) so the
// reference backend can run any input.

#include <cmath>
#include <limits>
#include <type_traits>

namespace specula::backends::reference::npmath
{
    template <class T>
    using unsigned_of = std::make_unsigned_t<T>;

    template <class T>
    constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

    // Signed overflow wraps in NumPy (two's complement); do it without UB.
    template <class T>
    T wrap_add(T a, T b)
    {
        if constexpr (is_int_v<T>)
        {
            return static_cast<T>(static_cast<unsigned_of<T>>(a) + static_cast<unsigned_of<T>>(b));
        }
        else if constexpr (std::is_same_v<T, bool>)
        {
            return a || b;
        }
        else
        {
            return a + b;
        }
    }

    template <class T>
    T wrap_sub(T a, T b)
    {
        if constexpr (is_int_v<T>)
        {
            return static_cast<T>(static_cast<unsigned_of<T>>(a) - static_cast<unsigned_of<T>>(b));
        }
        else
        {
            return a - b;
        }
    }

    template <class T>
    T wrap_mul(T a, T b)
    {
        if constexpr (is_int_v<T>)
        {
            // Small types promote to int; multiply in a wide unsigned type.
            using u = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, unsigned_of<T>>;
            return static_cast<T>(static_cast<u>(static_cast<unsigned_of<T>>(a)) *
                                  static_cast<u>(static_cast<unsigned_of<T>>(b)));
        }
        else if constexpr (std::is_same_v<T, bool>)
        {
            return a && b;
        }
        else
        {
            return a * b;
        }
    }

    template <class T>
    T wrap_neg(T a)
    {
        if constexpr (std::is_floating_point_v<T>)
        {
            return -a; // keeps the sign of zero: -(0.0) is -0.0
        }
        else
        {
            return wrap_sub(T(0), a);
        }
    }

    // Python floor division; x // 0 == 0 and MIN // -1 == MIN as NumPy 1.24.
    template <class T>
    T int_floor_div(T a, T b)
    {
        if (b == 0)
        {
            return 0;
        }
        if constexpr (std::is_signed_v<T>)
        {
            if (b == -1)
            {
                return wrap_neg(a);
            }
            T q = static_cast<T>(a / b);
            if ((a % b != 0) && ((a < 0) != (b < 0)))
            {
                --q;
            }
            return q;
        }
        else
        {
            return static_cast<T>(a / b);
        }
    }

    // Python modulo (sign of the divisor); x % 0 == 0.
    template <class T>
    T int_mod(T a, T b)
    {
        if (b == 0)
        {
            return 0;
        }
        if constexpr (std::is_signed_v<T>)
        {
            if (b == -1)
            {
                return 0;
            }
            T r = static_cast<T>(a % b);
            if (r != 0 && ((r < 0) != (b < 0)))
            {
                r = static_cast<T>(r + b);
            }
            return r;
        }
        else
        {
            return static_cast<T>(a % b);
        }
    }

    // C remainder (np.fmod) for integers, x fmod 0 == 0.
    template <class T>
    T int_fmod(T a, T b)
    {
        if (b == 0)
        {
            return 0;
        }
        if constexpr (std::is_signed_v<T>)
        {
            if (b == -1)
            {
                return 0;
            }
        }
        return static_cast<T>(a % b);
    }

    // npy_divmod: the quotient is rounded so that q*b + mod reproduces a as
    // closely as possible; both results are needed by floor_divide/remainder.
    template <class T>
    T float_divmod(T a, T b, T& mod)
    {
        mod = std::fmod(a, b);
        if (b == 0)
        {
            return a / b;
        }
        T div = (a - mod) / b;
        if (mod != 0)
        {
            if ((b < 0) != (mod < 0))
            {
                mod += b;
                div -= T(1);
            }
        }
        else
        {
            mod = std::copysign(T(0), b);
        }
        T floordiv;
        if (div != 0)
        {
            floordiv = std::floor(div);
            if (div - floordiv > T(0.5))
            {
                floordiv += T(1);
            }
        }
        else
        {
            floordiv = std::copysign(T(0), a / b);
        }
        return floordiv;
    }

    template <class T>
    T float_floor_div(T a, T b)
    {
        T mod;
        return float_divmod(a, b, mod);
    }

    template <class T>
    T float_mod(T a, T b)
    {
        if (b == 0)
        {
            return std::fmod(a, b);
        }
        T mod;
        float_divmod(a, b, mod);
        return mod;
    }

    // Square-and-multiply with wrapping; the exponent must be >= 0 (negative
    // ones are rejected before the loop, as NumPy raises).
    template <class T>
    T int_pow(T base, T exp)
    {
        T out = 1;
        while (exp != 0)
        {
            if (exp & 1)
            {
                out = wrap_mul(out, base);
            }
            base = wrap_mul(base, base);
            exp = static_cast<T>(exp >> 1);
        }
        return out;
    }

    // Shifts by >= the bit width (or negative counts) saturate as npy_lshift
    // and npy_rshift do instead of being undefined.
    template <class T>
    T left_shift(T a, T b)
    {
        constexpr auto bits = sizeof(T) * 8;
        if (static_cast<unsigned long long>(static_cast<long long>(b)) >= bits)
        {
            return 0;
        }
        return static_cast<T>(static_cast<unsigned_of<T>>(a) << b);
    }

    template <class T>
    T right_shift(T a, T b)
    {
        constexpr auto bits = sizeof(T) * 8;
        if (static_cast<unsigned long long>(static_cast<long long>(b)) >= bits)
        {
            if constexpr (std::is_signed_v<T>)
            {
                return a < 0 ? T(-1) : T(0);
            }
            return 0;
        }
        return static_cast<T>(a >> b);
    }

    template <class T>
    bool is_nan(T v)
    {
        if constexpr (std::is_floating_point_v<T>)
        {
            return std::isnan(v);
        }
        return false;
    }

    // np.maximum / np.minimum: NaN wins; on ties the second operand is kept,
    // which is what decides the sign of a zero result.
    template <class T>
    T maximum(T a, T b)
    {
        if (is_nan(a))
        {
            return a;
        }
        return (a > b) ? a : b;
    }

    template <class T>
    T minimum(T a, T b)
    {
        if (is_nan(a))
        {
            return a;
        }
        return (a < b) ? a : b;
    }

    // np.fmax / np.fmin: a NaN operand is ignored unless both are NaN.
    template <class T>
    T fmax(T a, T b)
    {
        if (is_nan(b))
        {
            return a;
        }
        if (is_nan(a))
        {
            return b;
        }
        return (a > b) ? a : b;
    }

    template <class T>
    T fmin(T a, T b)
    {
        if (is_nan(b))
        {
            return a;
        }
        if (is_nan(a))
        {
            return b;
        }
        return (a < b) ? a : b;
    }

    template <class T>
    T sign(T v)
    {
        if constexpr (std::is_floating_point_v<T>)
        {
            if (std::isnan(v))
            {
                return v;
            }
        }
        if constexpr (std::is_unsigned_v<T>)
        {
            return v > 0 ? T(1) : T(0);
        }
        else
        {
            return v > 0 ? T(1) : (v < 0 ? T(-1) : T(0));
        }
    }

    template <class T>
    T absolute(T v)
    {
        if constexpr (std::is_floating_point_v<T>)
        {
            return std::fabs(v);
        }
        else if constexpr (std::is_signed_v<T>)
        {
            return v < 0 ? wrap_neg(v) : v;
        }
        else
        {
            return v;
        }
    }
} // namespace specula::backends::reference::npmath
