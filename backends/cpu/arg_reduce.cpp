// argmax/argmin: the position, in the output's reduction order, of the first
// maximum (minimum), or of the first NaN when there is one (NumPy's rule).
// An index has no rounding, so any order that finds the same element is
// exact; these walks are chosen for speed:
//  - contiguous runs, in blocks: one vectorised scan per block (arg_scan.hpp)
//    finds the block's first extreme or first NaN. A later block replaces the best only when
//    strictly better, and a NaN ends the walk. One output over many elements is cut into pieces the
//    lanes take, and the pieces' answers are combined in order;
//  - the innermost dim kept (argmax over axis 0 of a C array): whole input
//    rows at a time, a best value and position per column, so memory is read
//    in order instead of one column at a time; split over column blocks.

#include "backends/cpu/arg_scan.hpp"
#include "backends/cpu/dtype_switch.hpp"
#include "backends/cpu/reduction_kernels.hpp"
#include "backends/cpu/threading.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace specula::backends::cpu
{
    namespace
    {
        constexpr std::int64_t block = 4096;
        // The scans cost ~0.15 ns per element, so a second lane pays for its
        // wake-up (a few microseconds) only from about this much work.
        constexpr std::int64_t split_min = std::int64_t(1) << 18;
        constexpr std::int64_t max_pieces = 64;

        template <class T>
        bool is_nan(T v)
        {
            if constexpr (std::is_floating_point_v<T>)
            {
                return std::isnan(v);
            }
            else
            {
                (void)v;
                return false;
            }
        }

        template <class T, class Cmp>
        struct best_of
        {
            T value{};
            std::int64_t at = -1; // -1: nothing seen yet
            bool nan = false;

            // Folds in a later candidate: strictly better, or the first NaN.
            bool take(T v, std::int64_t k)
            {
                if (nan)
                {
                    return false;
                }
                if (at < 0 || is_nan(v) || Cmp::better(v, value))
                {
                    value = v;
                    at = k;
                    nan = is_nan(v);
                    return true;
                }
                return false;
            }
        };

        // Cmp: prefer_greater (argmax) or prefer_less (argmin).
        template <class T, class Cmp>
        struct arg_walk
        {
            using best = best_of<T, Cmp>;

            // The first position of the extreme of x[0, n) (the first NaN).
            std::int64_t block_arg(const T* x, std::int64_t n, T& value) const
            {
                const std::int64_t i = first_extreme<Cmp>(x, n);
                value = x[i];
                return i;
            }

            // Folds x[0, n) (positions k0 on) into `best`; false once a NaN ends it.
            bool fold_run(const T* x, std::int64_t n, std::int64_t k0, best& b) const
            {
                for (std::int64_t s = 0; s < n; s += block)
                {
                    T v{};
                    const std::int64_t i = block_arg(x + s, std::min(block, n - s), v);
                    b.take(v, k0 + s + i);
                    if (b.nan)
                    {
                        return false;
                    }
                }
                return true;
            }

            std::int64_t fold_output(const reduce_plan& p, const T* x, std::int64_t base) const
            {
                best b;
                std::int64_t k = 0;
                bool going = true;
                for_each_run(p, base,
                             [&](std::int64_t at)
                             {
                                 if (going)
                                 {
                                     going = fold_run(x + at, p.run, k, b);
                                 }
                                 k += p.run;
                             });
                return b.at;
            }

            // One run of n elements cut into pieces the lanes take.
            std::int64_t split_run(const T* x, std::int64_t n, thread_pool& pool) const
            {
                const std::int64_t pieces =
                    std::min<std::int64_t>(max_pieces, std::max<std::int64_t>(1, n / (4 * block)));
                const std::int64_t len = (n + pieces - 1) / pieces;
                best part[max_pieces];
                pool.run_split(pieces, len,
                               [&](int, std::int64_t i0, std::int64_t i1)
                               {
                                   for (std::int64_t i = i0; i < i1; ++i)
                                   {
                                       const std::int64_t s = i * len;
                                       fold_run(x + s, std::min(len, n - s), s, part[i]);
                                   }
                               });
                best b;
                for (std::int64_t i = 0; i < pieces && !b.nan; ++i)
                {
                    if (part[i].at >= 0)
                    {
                        b.take(part[i].value, part[i].at);
                    }
                }
                return b.at;
            }

            // Innermost dim kept: columns [j0, j1) of output row r, whole
            // input rows at a time.
            void fold_columns(const reduce_plan& p, const reduce_plan& rows, const T* x,
                              std::int64_t r, std::int64_t j0, std::int64_t j1,
                              std::int64_t* out) const
            {
                const std::int64_t k = p.kept_size[p.num_kept - 1];
                const std::int64_t w = j1 - j0;
                T value[512];
                std::int64_t* at = out + r * k + j0;
                std::int64_t kk = 0;
                for_each_run(p, output_base(rows, r),
                             [&](std::int64_t base)
                             {
                                 const T* src = x + base + j0;
                                 if (kk == 0)
                                 {
                                     std::copy(src, src + w, value);
                                     std::fill(at, at + w, 0);
                                 }
                                 else
                                 {
                                     for (std::int64_t j = 0; j < w; ++j)
                                     {
                                         const T v = src[j];
                                         const T b = value[j];
                                         const bool better =
                                             !is_nan(b) && (is_nan(v) || Cmp::better(v, b));
                                         value[j] = better ? v : b;
                                         at[j] = better ? kk : at[j];
                                     }
                                 }
                                 ++kk;
                             });
            }

            void kept_rows(const reduce_plan& p, const T* x, std::int64_t* out,
                           thread_pool* pool) const
            {
                const std::int64_t k = p.kept_size[p.num_kept - 1];
                reduce_plan rows = p;
                rows.num_kept -= 1;
                rows.outputs = p.outputs / k;
                const std::int64_t cols = 512;
                const std::int64_t col_blocks = (k + cols - 1) / cols;
                const std::int64_t items = rows.outputs * col_blocks;
                auto body = [&](int, std::int64_t i0, std::int64_t i1)
                {
                    for (std::int64_t i = i0; i < i1; ++i)
                    {
                        const std::int64_t r = i / col_blocks;
                        const std::int64_t j0 = (i % col_blocks) * cols;
                        fold_columns(p, rows, x, r, j0, std::min(k, j0 + cols), out);
                    }
                };
                if (pool == nullptr || pool->lanes() < 2 || items < 2 ||
                    p.outputs * p.count < split_min)
                {
                    body(0, 0, items);
                    return;
                }
                pool->run_split(items, p.count * std::min(cols, k), body);
            }
        };

        template <class T, class Cmp>
        void arg_typed(const arg_walk<T, Cmp>& w, const reduce_plan& p, const T* x, std::int64_t* y,
                       thread_pool* pool)
        {
            const int lanes = pool != nullptr ? pool->lanes() : 1;
            if (p.run == 1 && p.num_kept > 0 && p.count > 1)
            {
                w.kept_rows(p, x, y, pool);
                return;
            }
            if (p.outputs == 1 && p.num_reduced == 0 && lanes >= 2 && p.run >= split_min)
            {
                y[0] = w.split_run(x, p.run, *pool);
                return;
            }
            auto one = [&](std::int64_t o) { y[o] = w.fold_output(p, x, output_base(p, o)); };
            if (lanes < 2 || p.outputs < lanes || p.outputs * p.count < split_min)
            {
                for (std::int64_t o = 0; o < p.outputs; ++o)
                {
                    one(o);
                }
                return;
            }
            pool->run_split(p.outputs, p.count,
                            [&](int, std::int64_t o0, std::int64_t o1)
                            {
                                for (std::int64_t o = o0; o < o1; ++o)
                                {
                                    one(o);
                                }
                            });
        }
    } // namespace

    status run_arg_reduction(ir::op code, const reduce_plan& p, const std::byte* in, ir::dtype elem,
                             std::byte* out, thread_pool* pool)
    {
        if (p.outputs == 0)
        {
            return status::ok();
        }
        return with_ctype(
            elem,
            [&](auto v)
            {
                using T = decltype(v);
                const auto* x = reinterpret_cast<const T*>(in);
                auto* y = reinterpret_cast<std::int64_t*>(out);
                if (code == ir::op::ARGMAX)
                {
                    arg_typed(arg_walk<T, prefer_greater>{}, p, x, y, pool);
                }
                else
                {
                    arg_typed(arg_walk<T, prefer_less>{}, p, x, y, pool);
                }
                return status::ok();
            },
            [] { return status::internal("argmax/argmin: dtype"); });
    }
} // namespace specula::backends::cpu
