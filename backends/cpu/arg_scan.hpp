#pragma once

// The scan behind argmax/argmin over one contiguous block: the position of
// the first maximum (minimum), or of the first NaN when there is one, as
// NumPy's argmax/argmin answer. Vectorised with AVX2 where the CPU has it
// (checked once at run time; the build targets any x86-64), plain loops
// otherwise and for the other dtypes.

#include <cstdint>

namespace specula::backends::cpu
{
    std::int64_t first_extreme(const double* x, std::int64_t n, bool is_max);
    std::int64_t first_extreme(const float* x, std::int64_t n, bool is_max);

    // Integers and bools: one pass, strictly better replaces (ties keep the
    // first).
    template <class T>
    std::int64_t first_extreme(const T* x, std::int64_t n, bool is_max)
    {
        std::int64_t at = 0;
        for (std::int64_t i = 1; i < n; ++i)
        {
            if (is_max ? x[i] > x[at] : x[i] < x[at])
            {
                at = i;
            }
        }
        return at;
    }
} // namespace specula::backends::cpu
