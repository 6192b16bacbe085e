// var and std as NumPy 1.24's _var computes them, step by step: the mean with
// keepdims (pairwise sum / count), x - mean, its square, the pairwise sum of
// the squares over the same axes, divided by max(count - ddof, 0); std takes
// the square root (IEEE-exact, as NumPy's sqrt loop). Integer inputs are
// converted to float64 first. Each step has the reference backend's rounding
// (backends/reference/variance.cpp), so the results are NumPy's bit for bit.

#include "backends/cpu/reduction_kernels.hpp"

#include "backends/reference/pairwise.hpp"

#include <algorithm>
#include <cmath>

namespace specula::backends::cpu
{
    namespace
    {
        template <class T>
        T pairwise_fold(const reduce_plan& p, const T* x, std::int64_t base)
        {
            T acc = T(0);
            for_each_run(p, base,
                         [&](std::int64_t at) {
                             acc = p.run == 1 ? acc + x[at]
                                              : reference::chunked_pairwise_sum(acc, x + at, p.run);
                         });
            return acc;
        }

        // The input's innermost group is kept: a row of k outputs at a time,
        // each step over whole input rows (per output the same sequence of
        // operations as the element-wise walk below).
        template <class T>
        void variance_rows(const reduce_plan& p, const T* x, T* dev, std::int64_t divisor,
                           bool is_std, T* out)
        {
            const std::int64_t k = p.kept_size[p.num_kept - 1];
            reduce_plan rows = p;
            rows.num_kept -= 1;
            rows.outputs = p.outputs / k;
            for (std::int64_t r = 0; r < rows.outputs; ++r)
            {
                T* acc = out + r * k;
                const std::int64_t base = output_base(rows, r);
                auto row_sum = [&](const T* v)
                {
                    std::fill(acc, acc + k, T(0));
                    for_each_run(p, base,
                                 [&](std::int64_t at)
                                 {
                                     for (std::int64_t j = 0; j < k; ++j)
                                     {
                                         acc[j] = acc[j] + v[at + j];
                                     }
                                 });
                };
                row_sum(x);
                for (std::int64_t j = 0; j < k; ++j)
                {
                    acc[j] = static_cast<T>(acc[j] / static_cast<T>(p.count)); // the means
                }
                for_each_run(p, base,
                             [&](std::int64_t at)
                             {
                                 for (std::int64_t j = 0; j < k; ++j)
                                 {
                                     const T d = x[at + j] - acc[j];
                                     dev[at + j] = d * d;
                                 }
                             });
                row_sum(dev);
                for (std::int64_t j = 0; j < k; ++j)
                {
                    const T v = static_cast<T>(acc[j] / static_cast<T>(divisor));
                    acc[j] = is_std ? std::sqrt(v) : v;
                }
            }
        }

        template <class T>
        void variance(const reduce_plan& p, const T* x, T* dev, std::int64_t ddof, bool is_std,
                      T* out)
        {
            const std::int64_t divisor = p.count - ddof > 0 ? p.count - ddof : 0;
            if (p.run == 1 && p.num_kept > 0 && p.count > 1 && p.outputs > 0)
            {
                variance_rows(p, x, dev, divisor, is_std, out);
                return;
            }
            for (std::int64_t o = 0; o < p.outputs; ++o)
            {
                const std::int64_t base = output_base(p, o);
                const T sum = pairwise_fold(p, x, base);
                const T mean = static_cast<T>(sum / static_cast<T>(p.count));
                for_each_run(p, base,
                             [&](std::int64_t at)
                             {
                                 for (std::int64_t i = at; i < at + p.run; ++i)
                                 {
                                     const T d = x[i] - mean;
                                     dev[i] = d * d;
                                 }
                             });
                T v = pairwise_fold(p, dev, base);
                v = static_cast<T>(v / static_cast<T>(divisor));
                out[o] = is_std ? std::sqrt(v) : v;
            }
        }

        class variance_kernel final : public kernel
        {
        public:
            // Any layout: strided inputs are read in place or copied by
            // strided_copy, so the executor need not stage them.
            bool reads_layout(int, const buffer&) const override { return true; }
            variance_kernel(ir::dtype elem, std::vector<bool> reduced, std::int64_t ddof,
                            bool is_std, std::shared_ptr<thread_pool> pool)
                : m_elem(elem), m_reduced(std::move(reduced)), m_ddof(ddof), m_std(is_std),
                  m_pool(std::move(pool))
            {
            }

        private:
            template <class T>
            void run_typed(const reduce_plan& p, const std::byte* in, std::int64_t n,
                           std::byte* out) const
            {
                if (m_dev.size() < static_cast<std::size_t>(n) * sizeof(T))
                {
                    m_dev.resize(static_cast<std::size_t>(n) * sizeof(T));
                }
                variance(p, reinterpret_cast<const T*>(in), reinterpret_cast<T*>(m_dev.data()),
                         m_ddof, m_std, reinterpret_cast<T*>(out));
            }

            status run_impl(const kernel_io& io) const override
            {
                const buffer& in = io.in(0);
                const reduce_plan p = plan_reduction(in.shape(), m_reduced);
                if (!io.out(0).is_contiguous() || io.out(0).size() != p.outputs)
                {
                    return status::internal("var/std: output shape or layout");
                }
                const std::byte* x = reduction_input(in, m_elem, m_input, m_pool.get());
                if (m_elem == ir::dtype::float32)
                {
                    run_typed<float>(p, x, in.size(), io.out(0).data());
                }
                else
                {
                    run_typed<double>(p, x, in.size(), io.out(0).data());
                }
                return status::ok();
            }

            ir::dtype m_elem; // float32, or float64 (integer inputs are converted)
            std::vector<bool> m_reduced;
            std::int64_t m_ddof;
            bool m_std;
            std::shared_ptr<thread_pool> m_pool;
            mutable std::vector<std::byte> m_input;
            // dev is aligned for doubles: std::vector<std::byte> storage comes
            // from operator new (alignof(std::max_align_t)).
            mutable std::vector<std::byte> m_dev;
        };
    } // namespace

    result<std::unique_ptr<kernel>> make_variance_kernel(const ir::graph& g, const ir::node& n,
                                                         const kernel_context& ctx)
    {
        const ir::dtype out = g.type_of(n.outputs[0]).elem;
        if (out != ir::dtype::float32 && out != ir::dtype::float64)
        {
            return status::unimplemented("var/std of a non-float result");
        }
        const auto& attr = n.attr_as<ir::reduce_attr>();
        if (g.type_of(n.inputs[0]).dims.rank() > reference::max_rank)
        {
            return status::unimplemented("var/std: rank");
        }
        return std::unique_ptr<kernel>(
            new variance_kernel(out, reduced_dims(attr, g.type_of(n.inputs[0]).dims.rank()),
                                attr.ddof, n.code == ir::op::STD, ctx.pool));
    }
} // namespace specula::backends::cpu
