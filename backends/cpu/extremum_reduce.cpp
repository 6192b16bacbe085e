// max/min reductions through NumPy's own maximum/minimum loop, called the way
// NumPy's reduction machinery calls it, so every bit is NumPy's:
//  - a reduced run (contiguous elements of one output): the output starts as
//    the run's first element, then the loop runs in reduce form (output
//    stride 0) over the rest in pieces that end at multiples of 8192 (the
//    iterator's buffer) counted from the run's start; further runs of the
//    same output continue from it. NumPy's SIMD reduction keeps a NaN's
//    payload only when the NaN falls in a piece's scalar tail (a NaN in the
//    vector part comes out as the default NaN), and which of 0.0 and -0.0
//    wins depends on the lanes: only these pieces reproduce both;
//  - the innermost dim kept: each further reduced row is folded into the
//    output row by the elementwise loop (out = op(out, row)), as NumPy does.
// One output over many elements is split across the lanes: max and min are
// order-independent except for which NaN or which zero comes out, so a
// result that is neither is NumPy's bits whatever the split (all values equal
// to a nonzero maximum have the same bits), and a NaN or zero result is
// recomputed on one lane in NumPy's order. Integers are order-independent.

#include "backends/cpu/reduction_kernels.hpp"
#include "backends/cpu/threading.hpp"

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>

namespace specula::backends::cpu
{
    namespace
    {
        // NumPy's reduce loop calls are at most its buffer size.
        constexpr std::int64_t numpy_buffer = 8192;
        // Below this one output stays on one lane: NumPy's loop takes ~0.1 ns
        // per element, so a second lane pays for its wake-up (a few
        // microseconds, more on a loaded machine) only from about here.
        constexpr std::int64_t split_min_elements = std::int64_t(1) << 18;
        constexpr int max_lanes = 64;

        struct extremum_args
        {
            ufunc_loop loop;
            std::intptr_t item = 8;
            const std::byte* x = nullptr;
        };

        // *acc = op(*acc, x[0]), ..., x[n - 1]: one call in reduce form.
        void reduce_call(const extremum_args& a, std::byte* acc, const std::byte* x, std::int64_t n)
        {
            char* args[3] = {reinterpret_cast<char*>(acc),
                             const_cast<char*>(reinterpret_cast<const char*>(x)),
                             reinterpret_cast<char*>(acc)};
            const std::intptr_t dims[1] = {static_cast<std::intptr_t>(n)};
            const std::intptr_t steps[3] = {0, a.item, 0};
            a.loop.fn(args, dims, steps, a.loop.data);
        }

        // acc[j] = op(acc[j], x[j]) for j < n: the elementwise form.
        void elementwise_call(const extremum_args& a, std::byte* acc, const std::byte* x,
                              std::int64_t n)
        {
            char* args[3] = {reinterpret_cast<char*>(acc),
                             const_cast<char*>(reinterpret_cast<const char*>(x)),
                             reinterpret_cast<char*>(acc)};
            const std::intptr_t dims[1] = {static_cast<std::intptr_t>(n)};
            const std::intptr_t steps[3] = {a.item, a.item, a.item};
            a.loop.fn(args, dims, steps, a.loop.data);
        }

        // Output at element offset `base`, in NumPy's order (see the top).
        void fold_numpy_order(const extremum_args& a, const reduce_plan& p, std::int64_t base,
                              std::byte* out)
        {
            bool first = true;
            for_each_run(p, base,
                         [&](std::int64_t at)
                         {
                             const std::byte* run = a.x + at * a.item;
                             std::int64_t s = 0;
                             if (first)
                             {
                                 std::memcpy(out, run, static_cast<std::size_t>(a.item));
                                 s = 1;
                                 first = false;
                             }
                             while (s < p.run)
                             {
                                 const std::int64_t e =
                                     std::min(p.run, (s / numpy_buffer + 1) * numpy_buffer);
                                 reduce_call(a, out, run + s * a.item, e - s);
                                 s = e;
                             }
                         });
        }

        // Raises again, when it goes, the IEEE flags that were up when it was
        // made: NumPy's maximum/minimum loops clear the status word (lanes
        // start clean, so only the calling thread's earlier flags matter).
        class kept_fp_flags
        {
        public:
            explicit kept_fp_flags(bool keep) : m_before(keep ? std::fetestexcept(ieee_flags) : 0)
            {
            }
            kept_fp_flags(const kept_fp_flags&) = delete;
            kept_fp_flags& operator=(const kept_fp_flags&) = delete;
            ~kept_fp_flags()
            {
                if (m_before != 0)
                {
                    std::feraiseexcept(m_before);
                }
            }

        private:
            static constexpr int ieee_flags =
                FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID;
            int m_before;
        };

        // Whether a result computed in another order may differ from NumPy's
        // in its bits: a NaN (which payload) or a zero (which sign).
        bool order_sensitive(ir::dtype elem, const std::byte* v)
        {
            if (elem == ir::dtype::float64)
            {
                double d;
                std::memcpy(&d, v, sizeof d);
                return std::isnan(d) || d == 0.0;
            }
            if (elem == ir::dtype::float32)
            {
                float f;
                std::memcpy(&f, v, sizeof f);
                return std::isnan(f) || f == 0.0F;
            }
            return false;
        }

        // One output over one run of n elements, split across the lanes.
        void split_single_run(const extremum_args& a, ir::dtype elem, const reduce_plan& p,
                              std::byte* out, thread_pool& pool)
        {
            const std::int64_t n = p.run;
            alignas(16) std::byte partial[max_lanes][16];
            bool has[max_lanes] = {};
            const std::int64_t blocks = (n + numpy_buffer - 1) / numpy_buffer;
            pool.run_split(blocks, numpy_buffer,
                           [&](int lane, std::int64_t b0, std::int64_t b1)
                           {
                               std::int64_t s = b0 * numpy_buffer;
                               const std::int64_t e = std::min(n, b1 * numpy_buffer);
                               std::byte* acc = partial[lane];
                               if (!has[lane])
                               {
                                   std::memcpy(acc, a.x + s * a.item,
                                               static_cast<std::size_t>(a.item));
                                   has[lane] = true;
                                   ++s;
                               }
                               reduce_call(a, acc, a.x + s * a.item, e - s);
                           });
            bool started = false;
            for (int lane = 0; lane < pool.lanes(); ++lane)
            {
                if (!has[lane])
                {
                    continue;
                }
                if (!started)
                {
                    std::memcpy(out, partial[lane], static_cast<std::size_t>(a.item));
                    started = true;
                    continue;
                }
                reduce_call(a, out, partial[lane], 1);
            }
            if (order_sensitive(elem, out))
            {
                fold_numpy_order(a, p, 0, out);
            }
        }

        // The innermost dim kept: rows of k outputs, each further reduced row
        // folded in by the elementwise loop; split over rows, or over column
        // blocks when there are fewer rows than lanes.
        void reduce_kept_rows(const extremum_args& a, const reduce_plan& p, std::byte* y,
                              thread_pool* pool)
        {
            const std::int64_t k = p.kept_size[p.num_kept - 1];
            reduce_plan rows = p;
            rows.num_kept -= 1;
            rows.outputs = p.outputs / k;
            auto fold_columns = [&](std::int64_t r, std::int64_t j0, std::int64_t j1)
            {
                std::byte* acc = y + (r * k + j0) * a.item;
                bool first = true;
                for_each_run(p, output_base(rows, r),
                             [&](std::int64_t at)
                             {
                                 const std::byte* src = a.x + (at + j0) * a.item;
                                 if (first)
                                 {
                                     std::memcpy(acc, src,
                                                 static_cast<std::size_t>((j1 - j0) * a.item));
                                     first = false;
                                     return;
                                 }
                                 elementwise_call(a, acc, src, j1 - j0);
                             });
            };
            const int lanes = pool != nullptr ? pool->lanes() : 1;
            const std::int64_t work = p.outputs * p.count;
            if (lanes < 2 || work < parallel_min_elements)
            {
                for (std::int64_t r = 0; r < rows.outputs; ++r)
                {
                    fold_columns(r, 0, k);
                }
                return;
            }
            if (rows.outputs >= lanes)
            {
                pool->run_split(rows.outputs, p.count * k,
                                [&](int, std::int64_t r0, std::int64_t r1)
                                {
                                    for (std::int64_t r = r0; r < r1; ++r)
                                    {
                                        fold_columns(r, 0, k);
                                    }
                                });
                return;
            }
            // Column blocks of a cache line's multiple: elementwise results do
            // not depend on where a block starts.
            const std::int64_t cols = 512;
            const std::int64_t col_blocks = (k + cols - 1) / cols;
            pool->run_split(rows.outputs * col_blocks, p.count * cols,
                            [&](int, std::int64_t i0, std::int64_t i1)
                            {
                                for (std::int64_t i = i0; i < i1; ++i)
                                {
                                    const std::int64_t r = i / col_blocks;
                                    const std::int64_t j0 = (i % col_blocks) * cols;
                                    fold_columns(r, j0, std::min(k, j0 + cols));
                                }
                            });
        }
    } // namespace

    void run_extremum(const ufunc_loop& loop, const reduce_plan& p, const std::byte* in,
                      ir::dtype elem, std::byte* out, thread_pool* pool)
    {
        // One call per output for a short run (a softmax's row max): the
        // flags are kept once around the whole reduction, not per call.
        const kept_fp_flags kept(loop.keeps_flags());
        const extremum_args a{loop.bare(), static_cast<std::intptr_t>(ir::itemsize(elem)), in};
        if (p.outputs == 0 || p.count == 0)
        {
            return;
        }
        if (p.run == 1 && p.num_kept > 0 && p.count > 1)
        {
            reduce_kept_rows(a, p, out, pool);
            return;
        }
        const int lanes = pool != nullptr ? pool->lanes() : 1;
        if (p.outputs == 1 && p.num_reduced == 0 && lanes >= 2 && lanes <= max_lanes &&
            p.run >= split_min_elements)
        {
            split_single_run(a, elem, p, out, *pool);
            return;
        }
        auto body = [&](std::int64_t o)
        { fold_numpy_order(a, p, output_base(p, o), out + o * a.item); };
        if (lanes < 2 || p.outputs < lanes || p.outputs * p.count < parallel_min_elements)
        {
            for (std::int64_t o = 0; o < p.outputs; ++o)
            {
                body(o);
            }
            return;
        }
        pool->run_split(p.outputs, p.count,
                        [&](int, std::int64_t o0, std::int64_t o1)
                        {
                            for (std::int64_t o = o0; o < o1; ++o)
                            {
                                body(o);
                            }
                        });
    }
} // namespace specula::backends::cpu
