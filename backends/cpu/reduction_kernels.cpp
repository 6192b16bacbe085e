// Reductions the pairwise sum kernel (sum_kernels.cpp) does not take: sum and
// mean over any axes, of any dtype, with symbolic shapes; prod, max, min,
// argmax, argmin, any, all; var and std. NumPy 1.24's results, as the
// reference backend reproduces them (backends/reference/reduce.cpp):
//  - sum/mean of floats: per output, acc = 0, then each run of the trailing
//    reduced block summed pairwise in 8192-element chunks and added, other
//    reduced elements added one by one in C order; integer means and
//    variances accumulate in float64, the input converted first (NumPy's
//    buffered cast);
//  - prod sequential; integer sums and products wrap;
//  - max/min: NumPy's own maximum/minimum loop in NumPy's calls
//    (extremum_reduce.cpp), which alone gives its NaN payloads and zero signs;
//  - argmax/argmin: first occurrence, the first NaN wins (arg_reduce.cpp);
//  - var/std: NumPy's _var step by step (variance_kernels.cpp).
// Output elements are independent, so large reductions split them across the
// pool's lanes without changing a bit.

#include "backends/cpu/reduction_kernels.hpp"
#include "backends/cpu/builtin_loops.hpp"
#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/dtype_switch.hpp"
#include "backends/cpu/strided_copy.hpp"
#include "backends/cpu/threading.hpp"
#include "backends/reference/numpy_math.hpp"
#include "backends/reference/pairwise.hpp"
#include "backends/reference/view.hpp"

#include <algorithm>
#include <string>

namespace specula::backends::cpu
{
    namespace
    {
        namespace npm = reference::npmath;

        template <class T>
        T fold_sum(const reduce_plan& p, const T* x, std::int64_t base)
        {
            T acc = T(0);
            for_each_run(p, base,
                         [&](std::int64_t at)
                         {
                             if constexpr (std::is_floating_point_v<T>)
                             {
                                 acc = p.run == 1
                                           ? acc + x[at]
                                           : reference::chunked_pairwise_sum(acc, x + at, p.run);
                             }
                             else
                             {
                                 for (std::int64_t i = 0; i < p.run; ++i)
                                 {
                                     acc = npm::wrap_add(acc, x[at + i]);
                                 }
                             }
                         });
            return acc;
        }

        template <class T>
        T fold_prod(const reduce_plan& p, const T* x, std::int64_t base)
        {
            T acc = T(1);
            for_each_run(p, base,
                         [&](std::int64_t at)
                         {
                             for (std::int64_t i = 0; i < p.run; ++i)
                             {
                                 acc = npm::wrap_mul(acc, x[at + i]);
                             }
                         });
            return acc;
        }

        bool fold_logical(const reduce_plan& p, const bool* x, std::int64_t base, bool is_all)
        {
            bool acc = is_all;
            for_each_run(p, base,
                         [&](std::int64_t at)
                         {
                             for (std::int64_t i = 0; i < p.run; ++i)
                             {
                                 acc = is_all ? (acc && x[at + i]) : (acc || x[at + i]);
                             }
                         });
            return acc;
        }

        // Runs body(o) for every output, split across the pool's lanes when
        // the reduction is large (outputs are independent).
        template <class F>
        void for_outputs(const reduce_plan& p, thread_pool* pool, F&& body)
        {
            const int lanes = pool != nullptr ? pool->lanes() : 1;
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

        // The input's innermost group is kept (stride 1): each row of k outputs
        // folds whole input rows, element j of every row in C order of the
        // reduced elements. Per output that is for_each_run's sequence, only
        // vectorised across the row (sum/mean/prod/max/min).
        template <class T>
        void reduce_rows(ir::op code, const reduce_plan& p, const T* x, T* y, thread_pool* pool)
        {
            const std::int64_t k = p.kept_size[p.num_kept - 1];
            reduce_plan rows = p; // one output per row of k
            rows.num_kept -= 1;
            rows.outputs = p.outputs / k;
            rows.count = p.count * k; // elements per row: for_outputs' lane threshold
            for_outputs(rows, pool,
                        [&](std::int64_t r)
                        {
                            T* acc = y + r * k;
                            const bool is_prod = code == ir::op::PROD;
                            std::fill(acc, acc + k, is_prod ? T(1) : T(0));
                            for_each_run(p, output_base(rows, r),
                                         [&](std::int64_t at)
                                         {
                                             const T* src = x + at;
                                             for (std::int64_t j = 0; j < k; ++j)
                                             {
                                                 acc[j] = is_prod ? npm::wrap_mul(acc[j], src[j])
                                                                  : npm::wrap_add(acc[j], src[j]);
                                             }
                                         });
                            if (code == ir::op::MEAN)
                            {
                                for (std::int64_t j = 0; j < k; ++j)
                                {
                                    acc[j] = static_cast<T>(acc[j] / static_cast<T>(p.count));
                                }
                            }
                        });
        }

        template <class T>
        status reduce_typed(ir::op code, const reduce_plan& p, const std::byte* in, std::byte* out,
                            thread_pool* pool)
        {
            const T* x = reinterpret_cast<const T*>(in);
            const bool row_wise =
                code == ir::op::SUM || code == ir::op::MEAN || code == ir::op::PROD;
            if (row_wise && p.run == 1 && p.num_kept > 0 && p.count > 1 && p.outputs > 0)
            {
                if constexpr (std::is_same_v<T, bool>)
                {
                    return status::internal("sum/prod accumulate in int64 or a float");
                }
                else
                {
                    reduce_rows(code, p, x, reinterpret_cast<T*>(out), pool);
                    return status::ok();
                }
            }
            switch (code)
            {
            case ir::op::SUM:
            case ir::op::MEAN:
            case ir::op::PROD:
            {
                if constexpr (!std::is_same_v<T, std::int64_t> && !std::is_floating_point_v<T>)
                {
                    return status::internal("sum/prod accumulate in int64 or a float");
                }
                T* y = reinterpret_cast<T*>(out);
                const bool is_mean = code == ir::op::MEAN;
                for_outputs(
                    p, pool,
                    [&](std::int64_t o)
                    {
                        const std::int64_t base = output_base(p, o);
                        T acc = code == ir::op::PROD ? fold_prod(p, x, base) : fold_sum(p, x, base);
                        y[o] = is_mean ? static_cast<T>(acc / static_cast<T>(p.count)) : acc;
                    });
                return status::ok();
            }
            default:
                return status::unimplemented("reduction");
            }
        }

        template <class F>
        status with_type(ir::dtype t, F&& f)
        {
            return with_ctype(t, f, [] { return status::internal("dtype"); });
        }
    } // namespace

    const std::byte* reduction_input(const buffer& in, ir::dtype elem,
                                     std::vector<std::byte>& scratch, thread_pool* pool)
    {
        if (in.is_contiguous() && in.dtype() == elem)
        {
            return in.data();
        }
        const strided_view src = reference::view_of(in);
        const std::size_t bytes = static_cast<std::size_t>(in.size()) * ir::itemsize(elem);
        if (scratch.size() < bytes)
        {
            scratch.resize(bytes);
        }
        const strided_view dst = reference::contiguous_view(
            scratch.data(), reference::to_scalar(elem), src.rank, src.shape.data());
        (void)copy_cast(src, dst, pool);
        return scratch.data();
    }

    status run_reduction(ir::op code, const reduce_plan& p, const std::byte* in, ir::dtype elem,
                         std::byte* out, thread_pool* pool)
    {
        if (code == ir::op::ANY || code == ir::op::ALL)
        {
            const bool* x = reinterpret_cast<const bool*>(in);
            bool* y = reinterpret_cast<bool*>(out);
            const bool is_all = code == ir::op::ALL;
            for_outputs(p, pool,
                        [&](std::int64_t o)
                        { y[o] = fold_logical(p, x, output_base(p, o), is_all); });
            return status::ok();
        }
        return with_type(elem,
                         [&](auto v) { return reduce_typed<decltype(v)>(code, p, in, out, pool); });
    }

    namespace
    {
        class reduction_kernel final : public kernel
        {
        public:
            // Any layout: strided inputs are read in place or copied by
            // strided_copy, so the executor need not stage them.
            bool reads_layout(int, const buffer&) const override { return true; }
            reduction_kernel(ir::op code, ir::dtype compute, std::vector<bool> reduced,
                             std::shared_ptr<thread_pool> pool, ufunc_loop extremum)
                : m_code(code), m_compute(compute), m_reduced(std::move(reduced)),
                  m_pool(std::move(pool)), m_extremum(extremum)
            {
            }

        private:
            status run_impl(const kernel_io& io) const override
            {
                const buffer& in = io.in(0);
                const reduce_plan p = plan_reduction(in.shape(), m_reduced);
                const bool needs_one = m_code == ir::op::MAX || m_code == ir::op::MIN ||
                                       m_code == ir::op::ARGMAX || m_code == ir::op::ARGMIN;
                if (needs_one && p.count == 0)
                {
                    return status::runtime("zero-size array to reduction operation which has "
                                           "no identity");
                }
                if (!io.out(0).is_contiguous() || io.out(0).size() != p.outputs)
                {
                    return status::internal("reduction: output shape or layout");
                }
                const std::byte* x = reduction_input(in, m_compute, m_input, m_pool.get());
                if (m_extremum)
                {
                    run_extremum(m_extremum, p, x, m_compute, io.out(0).data(), m_pool.get());
                    return status::ok();
                }
                if (m_code == ir::op::ARGMAX || m_code == ir::op::ARGMIN)
                {
                    return run_arg_reduction(m_code, p, x, m_compute, io.out(0).data(),
                                             m_pool.get());
                }
                return run_reduction(m_code, p, x, m_compute, io.out(0).data(), m_pool.get());
            }

            ir::op m_code;
            ir::dtype m_compute; // the input is converted to it first when it differs
            std::vector<bool> m_reduced;
            std::shared_ptr<thread_pool> m_pool;
            ufunc_loop m_extremum; // max/min: the maximum/minimum loop
            mutable std::vector<std::byte> m_input;
        };

        // max/min run NumPy's own maximum/minimum loop where there is one (the
        // only way to its NaN payloads and zero signs), else our bit-equal
        // elementwise loop in the same calls.
        ufunc_loop extremum_loop(ir::op code, ir::dtype elem, const kernel_context& ctx)
        {
            if (code != ir::op::MAX && code != ir::op::MIN)
            {
                return {};
            }
            const ir::op fn = code == ir::op::MAX ? ir::op::MAXIMUM : ir::op::MINIMUM;
            if (ctx.p_options != nullptr && ctx.p_options->numpy_loops != nullptr)
            {
                if (ufunc_loop l = ctx.p_options->numpy_loops->find(fn, elem))
                {
                    return l;
                }
            }
            return builtin_loop(fn, elem);
        }
    } // namespace

    std::vector<bool> reduced_dims(const ir::reduce_attr& attr, int rank)
    {
        std::vector<bool> reduced(static_cast<std::size_t>(rank), attr.all_axes);
        for (int axis : attr.axes)
        {
            const int a = axis < 0 ? axis + rank : axis;
            if (a >= 0 && a < rank)
            {
                reduced[static_cast<std::size_t>(a)] = true;
            }
        }
        return reduced;
    }

    result<std::unique_ptr<kernel>> make_reduction_kernel(const ir::graph& g, const ir::node& n,
                                                          const kernel_context& ctx)
    {
        if (n.code == ir::op::VAR || n.code == ir::op::STD)
        {
            return make_variance_kernel(g, n, ctx);
        }
        if (!ir::has(n.code, ir::prop::REDUCTION))
        {
            return status::unimplemented("not a reduction");
        }
        const ir::value_type& tin = g.type_of(n.inputs[0]);
        if (tin.dims.rank() > reference::max_rank)
        {
            return status::unimplemented("rank above " + std::to_string(reference::max_rank));
        }
        const ir::dtype out = g.type_of(n.outputs[0]).elem;
        ir::dtype compute = out; // sum/mean/prod accumulate in the result dtype
        if (n.code == ir::op::ANY || n.code == ir::op::ALL)
        {
            compute = ir::dtype::bool_; // x != 0, NaN true
        }
        else if (n.code == ir::op::ARGMAX || n.code == ir::op::ARGMIN)
        {
            compute = tin.elem;
        }
        std::vector<bool> reduced = reduced_dims(n.attr_as<ir::reduce_attr>(), tin.dims.rank());
        const ufunc_loop extremum = extremum_loop(n.code, compute, ctx);
        if ((n.code == ir::op::MAX || n.code == ir::op::MIN) && !extremum)
        {
            return status::unimplemented("no maximum/minimum loop for this dtype");
        }
        return std::unique_ptr<kernel>(
            new reduction_kernel(n.code, compute, std::move(reduced), ctx.pool, extremum));
    }
} // namespace specula::backends::cpu
