// argmax/argmin block scans of floats (arg_scan.hpp). The AVX2 scan takes the
// block's extreme value first (max/min are exact whatever the order; which
// zero comes out does not matter, since -0.0 == 0.0 in the lookup that
// follows, as in NumPy's `>` scan), then the first position holding that
// value. Unordered compares notice NaNs, and then the answer is the first
// NaN's position. One scan serves both float widths (a register traits
// struct) and both comparisons (prefer_greater / prefer_less).

#include "backends/cpu/arg_scan.hpp"

#include <immintrin.h>

#include <cmath>

// The register helpers must inline into the AVX2 scan, which is compiled for
// AVX2 while the rest of the file is not.
#define SPECULA_AVX2_INLINE [[gnu::target("avx2"), gnu::always_inline]] static inline

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
        template <class Cmp, class T>
        std::int64_t scalar_scan(const T* x, std::int64_t n)
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
                if (Cmp::better(x[i], x[at]))
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

        struct avx2_f64
        {
            using scalar = double;
            using reg = __m256d;
            static constexpr std::int64_t width = 4;

            SPECULA_AVX2_INLINE reg load(const double* p) { return _mm256_loadu_pd(p); }
            SPECULA_AVX2_INLINE void store(double* p, reg a) { _mm256_store_pd(p, a); }
            SPECULA_AVX2_INLINE reg splat(double v) { return _mm256_set1_pd(v); }
            SPECULA_AVX2_INLINE reg max(reg a, reg b) { return _mm256_max_pd(a, b); }
            SPECULA_AVX2_INLINE reg min(reg a, reg b) { return _mm256_min_pd(a, b); }
            SPECULA_AVX2_INLINE reg unordered(reg a, reg b)
            {
                return _mm256_cmp_pd(a, b, _CMP_UNORD_Q);
            }
            SPECULA_AVX2_INLINE reg equal(reg a, reg b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
            SPECULA_AVX2_INLINE reg either(reg a, reg b) { return _mm256_or_pd(a, b); }
            SPECULA_AVX2_INLINE bool any(reg a) { return _mm256_movemask_pd(a) != 0; }
        };

        struct avx2_f32
        {
            using scalar = float;
            using reg = __m256;
            static constexpr std::int64_t width = 8;

            SPECULA_AVX2_INLINE reg load(const float* p) { return _mm256_loadu_ps(p); }
            SPECULA_AVX2_INLINE void store(float* p, reg a) { _mm256_store_ps(p, a); }
            SPECULA_AVX2_INLINE reg splat(float v) { return _mm256_set1_ps(v); }
            SPECULA_AVX2_INLINE reg max(reg a, reg b) { return _mm256_max_ps(a, b); }
            SPECULA_AVX2_INLINE reg min(reg a, reg b) { return _mm256_min_ps(a, b); }
            SPECULA_AVX2_INLINE reg unordered(reg a, reg b)
            {
                return _mm256_cmp_ps(a, b, _CMP_UNORD_Q);
            }
            SPECULA_AVX2_INLINE reg equal(reg a, reg b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
            SPECULA_AVX2_INLINE reg either(reg a, reg b) { return _mm256_or_ps(a, b); }
            SPECULA_AVX2_INLINE bool any(reg a) { return _mm256_movemask_ps(a) != 0; }
        };

        // The running extreme of a register pair: max for argmax, min for
        // argmin (operand order as written: a NaN in `b` is noticed apart).
        template <class V, class Cmp>
        SPECULA_AVX2_INLINE typename V::reg extreme(typename V::reg a, typename V::reg b)
        {
            if constexpr (std::is_same_v<Cmp, prefer_greater>)
            {
                return V::max(a, b);
            }
            else
            {
                return V::min(a, b);
            }
        }

        // Two passes over the block (it stays in L1): the extreme value with
        // four independent accumulators (the compare/blend chain of a single
        // one would bound the speed), NaNs noted by unordered compares; then
        // the first position holding it, two registers per test. n >= 4 widths.
        template <class V, class Cmp>
        [[gnu::target("avx2")]] std::int64_t scan_avx2(const typename V::scalar* x, std::int64_t n)
        {
            using T = typename V::scalar;
            constexpr std::int64_t w = V::width;
            typename V::reg a0 = V::load(x);
            typename V::reg a1 = a0;
            typename V::reg a2 = a0;
            typename V::reg a3 = a0;
            typename V::reg nan = V::unordered(a0, a0);
            std::int64_t i = 0;
            for (; i + 4 * w <= n; i += 4 * w)
            {
                const typename V::reg v0 = V::load(x + i);
                const typename V::reg v1 = V::load(x + i + w);
                const typename V::reg v2 = V::load(x + i + 2 * w);
                const typename V::reg v3 = V::load(x + i + 3 * w);
                a0 = extreme<V, Cmp>(a0, v0);
                a1 = extreme<V, Cmp>(a1, v1);
                a2 = extreme<V, Cmp>(a2, v2);
                a3 = extreme<V, Cmp>(a3, v3);
                nan = V::either(nan, V::either(V::unordered(v0, v1), V::unordered(v2, v3)));
            }
            if (V::any(nan))
            {
                return first_nan(x, n);
            }
            alignas(32) T lanes[4 * w];
            V::store(lanes, a0);
            V::store(lanes + w, a1);
            V::store(lanes + 2 * w, a2);
            V::store(lanes + 3 * w, a3);
            T m = lanes[0];
            for (std::int64_t j = 1; j < 4 * w; ++j)
            {
                m = Cmp::better(lanes[j], m) ? lanes[j] : m;
            }
            for (std::int64_t k = i; k < n; ++k)
            {
                if (std::isnan(x[k]))
                {
                    return first_nan(x, n);
                }
                m = Cmp::better(x[k], m) ? x[k] : m;
            }
            const typename V::reg mv = V::splat(m);
            std::int64_t k = 0;
            for (; k + 2 * w <= n; k += 2 * w)
            {
                if (V::any(
                        V::either(V::equal(V::load(x + k), mv), V::equal(V::load(x + k + w), mv))))
                {
                    break;
                }
            }
            return k + first_equal(x + k, n - k, m);
        }

        template <class V, class Cmp>
        std::int64_t scan(const typename V::scalar* x, std::int64_t n)
        {
            if (n < 4 * V::width || !has_avx2())
            {
                return scalar_scan<Cmp>(x, n);
            }
            return scan_avx2<V, Cmp>(x, n);
        }
    } // namespace

    template <class Cmp, class T>
    std::int64_t first_float_extreme(const T* x, std::int64_t n)
    {
        if constexpr (std::is_same_v<T, double>)
        {
            return scan<avx2_f64, Cmp>(x, n);
        }
        else
        {
            static_assert(std::is_same_v<T, float>, "argmax/argmin scans: float or double");
            return scan<avx2_f32, Cmp>(x, n);
        }
    }

    template std::int64_t first_float_extreme<prefer_greater>(const double*, std::int64_t);
    template std::int64_t first_float_extreme<prefer_less>(const double*, std::int64_t);
    template std::int64_t first_float_extreme<prefer_greater>(const float*, std::int64_t);
    template std::int64_t first_float_extreme<prefer_less>(const float*, std::int64_t);
} // namespace specula::backends::cpu

#undef SPECULA_AVX2_INLINE
