#pragma once

// NumPy's summation order for floating-point add-reductions, reproduced so
// that sums match NumPy bit for bit: pairwise recursion with an 8-way
// unrolled base case of at most 128 elements, applied to each inner-loop call
// of the iterator, whose length NumPy's buffering caps at 8192 elements.

#include <cstdint>

namespace specula::backends::reference
{
    inline constexpr std::int64_t numpy_buffer_size = 8192;
    inline constexpr std::int64_t pairwise_block = 128;

    template <class T>
    T pairwise_sum(const T* a, std::int64_t n)
    {
        if (n < 8)
        {
            T res = T(0);
            for (std::int64_t i = 0; i < n; ++i)
            {
                res += a[i];
            }
            return res;
        }
        if (n <= pairwise_block)
        {
            T r[8];
            for (int j = 0; j < 8; ++j)
            {
                r[j] = a[j];
            }
            std::int64_t i = 8;
            for (; i < n - (n % 8); i += 8)
            {
                for (int j = 0; j < 8; ++j)
                {
                    r[j] += a[i + j];
                }
            }
            T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
            for (; i < n; ++i)
            {
                res += a[i];
            }
            return res;
        }
        std::int64_t half = n / 2;
        half -= half % 8;
        return pairwise_sum(a, half) + pairwise_sum(a + half, n - half);
    }

    // acc += each buffer-sized chunk's pairwise sum, in order.
    template <class T>
    T chunked_pairwise_sum(T acc, const T* a, std::int64_t n)
    {
        for (std::int64_t start = 0; start < n; start += numpy_buffer_size)
        {
            const std::int64_t len = n - start < numpy_buffer_size ? n - start : numpy_buffer_size;
            acc += pairwise_sum(a + start, len);
        }
        return acc;
    }
} // namespace specula::backends::reference
