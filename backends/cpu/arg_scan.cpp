// argmax/argmin block scans (arg_scan.hpp). The AVX2 scan takes the block's
// extreme value first (max/min are exact whatever the order; which zero comes
// out does not matter, since -0.0 == 0.0 in the lookup that follows, as in
// NumPy's `>` scan), then the first position holding that value. Unordered
// compares notice NaNs, and then the answer is the first NaN's position.

#include "backends/cpu/arg_scan.hpp"

#include <immintrin.h>

#include <cmath>

namespace specula::backends::cpu
{
    namespace
    {
        template <class T>
        std::int64_t first_nan(const T* x, std::int64_t n)
        {
            for (std::int64_t i = 0; i < n; ++i)
            {
                if (std::isnan(x[i]))
                {
                    return i;
                }
            }
            return -1;
        }

        // The plain scan: strictly better replaces, the first NaN ends it.
        template <class T>
        std::int64_t scalar_scan(const T* x, std::int64_t n, bool is_max)
        {
            std::int64_t at = 0;
            if (std::isnan(x[0]))
            {
                return 0;
            }
            for (std::int64_t i = 1; i < n; ++i)
            {
                if (std::isnan(x[i]))
                {
                    return i;
                }
                if (is_max ? x[i] > x[at] : x[i] < x[at])
                {
                    at = i;
                }
            }
            return at;
        }

        bool has_avx2()
        {
            static const bool yes = __builtin_cpu_supports("avx2") != 0;
            return yes;
        }

        // The first position holding `m` (no NaN in x, m one of x).
        template <class T>
        std::int64_t first_equal(const T* x, std::int64_t n, T m)
        {
            for (std::int64_t i = 0; i < n; ++i)
            {
                if (x[i] == m)
                {
                    return i;
                }
            }
            return 0;
        }

        // Two passes over the block (it stays in L1): the extreme value with
        // four independent accumulators (the compare/blend chain of a single
        // one would bound the speed), NaNs noted by unordered compares; then
        // the first position holding it, eight elements per test.
        template <bool IsMax>
        [[gnu::target("avx2")]] std::int64_t scan_f64_avx2(const double* x, std::int64_t n)
        {
            __m256d a0 = _mm256_loadu_pd(x);
            __m256d a1 = a0;
            __m256d a2 = a0;
            __m256d a3 = a0;
            __m256d nan = _mm256_cmp_pd(a0, a0, _CMP_UNORD_Q);
            std::int64_t i = 0;
            for (; i + 16 <= n; i += 16)
            {
                const __m256d v0 = _mm256_loadu_pd(x + i);
                const __m256d v1 = _mm256_loadu_pd(x + i + 4);
                const __m256d v2 = _mm256_loadu_pd(x + i + 8);
                const __m256d v3 = _mm256_loadu_pd(x + i + 12);
                a0 = IsMax ? _mm256_max_pd(a0, v0) : _mm256_min_pd(a0, v0);
                a1 = IsMax ? _mm256_max_pd(a1, v1) : _mm256_min_pd(a1, v1);
                a2 = IsMax ? _mm256_max_pd(a2, v2) : _mm256_min_pd(a2, v2);
                a3 = IsMax ? _mm256_max_pd(a3, v3) : _mm256_min_pd(a3, v3);
                nan = _mm256_or_pd(nan, _mm256_or_pd(_mm256_cmp_pd(v0, v1, _CMP_UNORD_Q),
                                                     _mm256_cmp_pd(v2, v3, _CMP_UNORD_Q)));
            }
            if (_mm256_movemask_pd(nan) != 0)
            {
                return first_nan(x, n);
            }
            alignas(32) double lanes[16];
            _mm256_store_pd(lanes, a0);
            _mm256_store_pd(lanes + 4, a1);
            _mm256_store_pd(lanes + 8, a2);
            _mm256_store_pd(lanes + 12, a3);
            double m = lanes[0];
            for (int j = 1; j < 16; ++j)
            {
                m = (IsMax ? lanes[j] > m : lanes[j] < m) ? lanes[j] : m;
            }
            for (std::int64_t k = i; k < n; ++k)
            {
                if (std::isnan(x[k]))
                {
                    return first_nan(x, n);
                }
                m = (IsMax ? x[k] > m : x[k] < m) ? x[k] : m;
            }
            const __m256d mv = _mm256_set1_pd(m);
            std::int64_t k = 0;
            for (; k + 8 <= n; k += 8)
            {
                const __m256d e0 = _mm256_cmp_pd(_mm256_loadu_pd(x + k), mv, _CMP_EQ_OQ);
                const __m256d e1 = _mm256_cmp_pd(_mm256_loadu_pd(x + k + 4), mv, _CMP_EQ_OQ);
                if (_mm256_movemask_pd(_mm256_or_pd(e0, e1)) != 0)
                {
                    break;
                }
            }
            return k + first_equal(x + k, n - k, m);
        }

        template <bool IsMax>
        [[gnu::target("avx2")]] std::int64_t scan_f32_avx2(const float* x, std::int64_t n)
        {
            __m256 a0 = _mm256_loadu_ps(x);
            __m256 a1 = a0;
            __m256 a2 = a0;
            __m256 a3 = a0;
            __m256 nan = _mm256_cmp_ps(a0, a0, _CMP_UNORD_Q);
            std::int64_t i = 0;
            for (; i + 32 <= n; i += 32)
            {
                const __m256 v0 = _mm256_loadu_ps(x + i);
                const __m256 v1 = _mm256_loadu_ps(x + i + 8);
                const __m256 v2 = _mm256_loadu_ps(x + i + 16);
                const __m256 v3 = _mm256_loadu_ps(x + i + 24);
                a0 = IsMax ? _mm256_max_ps(a0, v0) : _mm256_min_ps(a0, v0);
                a1 = IsMax ? _mm256_max_ps(a1, v1) : _mm256_min_ps(a1, v1);
                a2 = IsMax ? _mm256_max_ps(a2, v2) : _mm256_min_ps(a2, v2);
                a3 = IsMax ? _mm256_max_ps(a3, v3) : _mm256_min_ps(a3, v3);
                nan = _mm256_or_ps(nan, _mm256_or_ps(_mm256_cmp_ps(v0, v1, _CMP_UNORD_Q),
                                                     _mm256_cmp_ps(v2, v3, _CMP_UNORD_Q)));
            }
            if (_mm256_movemask_ps(nan) != 0)
            {
                return first_nan(x, n);
            }
            alignas(32) float lanes[32];
            _mm256_store_ps(lanes, a0);
            _mm256_store_ps(lanes + 8, a1);
            _mm256_store_ps(lanes + 16, a2);
            _mm256_store_ps(lanes + 24, a3);
            float m = lanes[0];
            for (int j = 1; j < 32; ++j)
            {
                m = (IsMax ? lanes[j] > m : lanes[j] < m) ? lanes[j] : m;
            }
            for (std::int64_t k = i; k < n; ++k)
            {
                if (std::isnan(x[k]))
                {
                    return first_nan(x, n);
                }
                m = (IsMax ? x[k] > m : x[k] < m) ? x[k] : m;
            }
            const __m256 mv = _mm256_set1_ps(m);
            std::int64_t k = 0;
            for (; k + 16 <= n; k += 16)
            {
                const __m256 e0 = _mm256_cmp_ps(_mm256_loadu_ps(x + k), mv, _CMP_EQ_OQ);
                const __m256 e1 = _mm256_cmp_ps(_mm256_loadu_ps(x + k + 8), mv, _CMP_EQ_OQ);
                if (_mm256_movemask_ps(_mm256_or_ps(e0, e1)) != 0)
                {
                    break;
                }
            }
            return k + first_equal(x + k, n - k, m);
        }
    } // namespace

    std::int64_t first_extreme(const double* x, std::int64_t n, bool is_max)
    {
        if (n < 16 || !has_avx2())
        {
            return scalar_scan(x, n, is_max);
        }
        return is_max ? scan_f64_avx2<true>(x, n) : scan_f64_avx2<false>(x, n);
    }

    std::int64_t first_extreme(const float* x, std::int64_t n, bool is_max)
    {
        if (n < 32 || !has_avx2())
        {
            return scalar_scan(x, n, is_max);
        }
        return is_max ? scan_f32_avx2<true>(x, n) : scan_f32_avx2<false>(x, n);
    }
} // namespace specula::backends::cpu
