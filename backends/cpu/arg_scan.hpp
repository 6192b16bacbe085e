#pragma once

// The scan behind argmax/argmin over one contiguous block: the position of
// the first maximum (minimum), or of the first NaN when there is one, as
// NumPy's argmax/argmin answer. argmax and argmin differ only in the
// comparison, so every scan is one template on it. Floats are vectorised with
// AVX2 where the CPU has it (checked once at run time; the build targets any
// x86-64), plain loops otherwise and for the other dtypes.

#include <cstdint>
#include <type_traits>

namespace specula::backends::cpu
{
    // argmax's comparison: a later value replaces the best only when strictly
    // greater, so ties keep the first position.
    struct prefer_greater
    {
        template <class T>
        static bool better(T a, T b)
        {
            return a > b;
        }
    };

    // argmin's comparison.
    struct prefer_less
    {
        template <class T>
        static bool better(T a, T b)
        {
            return a < b;
        }
    };

    // float and double, both comparisons (arg_scan.cpp).
    template <class Cmp, class T>
    std::int64_t first_float_extreme(const T* x, std::int64_t n);

    // n >= 1.
    template <class Cmp, class T>
    std::int64_t first_extreme(const T* x, std::int64_t n)
    {
        if constexpr (std::is_floating_point_v<T>)
        {
            return first_float_extreme<Cmp>(x, n);
        }
        else
        {
            // Integers and bools: one pass, strictly better replaces.
            std::int64_t at = 0;
            for (std::int64_t i = 1; i < n; ++i)
            {
                if (Cmp::better(x[i], x[at]))
                {
                    at = i;
                }
            }
            return at;
        }
    }
} // namespace specula::backends::cpu
