// float32 sum/mean over any static axes on oneDNN's reduction
// primitive (fast target only: its summation order is blocked, not NumPy's
// pairwise one; tolerance in the README).

#include "backends/cpu/onednn/onednn_reduction.hpp"

#include "backends/cpu/onednn/onednn_context.hpp"
#include "backends/cpu/onednn/onednn_graph_util.hpp"
#include "backends/cpu/onednn/onednn_selection.hpp"
#include "backends/cpu/threading.hpp"

#include <algorithm>

namespace specula::backends::cpu::onednn
{
    namespace
    {
        std::optional<dnnl::algorithm> reduction_alg(ir::op code)
        {
            switch (code)
            {
            case ir::op::SUM:
                return dnnl::algorithm::reduction_sum;
            case ir::op::MEAN:
                return dnnl::algorithm::reduction_mean;
            // No MAX/MIN: oneDNN 2.6's reduction_max drops NaN in some rows
            // (measured), np.max propagates it.
            default:
                return std::nullopt;
            }
        }
    } // namespace

    std::optional<call_plan> reduction_plan(const ir::graph& g, const ir::node& n)
    {
        auto a = reduction_alg(n.code);
        if (!a || n.inputs.size() != 1 || !is_f32(g, n.inputs[0]) || !is_f32(g, n.outputs[0]))
        {
            return std::nullopt;
        }
        auto in = g.type_of(n.inputs[0]).dims.static_sizes();
        if (!in || in->empty() || in->size() > 6)
        {
            return std::nullopt;
        }
        const auto& attr = n.attr_as<ir::reduce_attr>();
        dnnl::memory::dims src(in->begin(), in->end());
        dnnl::memory::dims dst = src;
        for (std::size_t i = 0; i < dst.size(); ++i)
        {
            const bool reduced = attr.all_axes || std::find(attr.axes.begin(), attr.axes.end(),
                                                            static_cast<int>(i)) != attr.axes.end();
            if (reduced)
            {
                if (src[i] == 0)
                {
                    return std::nullopt; // empty reductions: NumPy's identity / error rules
                }
                dst[i] = 1;
            }
        }
        call_plan plan;
        plan.what = "reduction " + std::to_string(static_cast<int>(*a));
        plan.operands = {{DNNL_ARG_SRC, 0, false, src}, {DNNL_ARG_DST, 0, true, dst}};
        // Lanes split dim 0 only when it is kept.
        plan.rows_independent = src.size() > 1 && dst[0] == src[0];
        const dnnl::algorithm alg = *a;
        plan.make = [alg](const std::vector<dnnl::memory::desc>& mds)
        {
            return dnnl::primitive(dnnl::reduction(jit_only(dnnl::reduction::primitive_desc(
                dnnl::reduction::desc(alg, mds[0], mds[1], 0.f, 0.f), kernel_attr(),
                host_engine()))));
        };
        return plan;
    }

    result<std::unique_ptr<kernel>> make_reduction_node(const ir::graph& g, const ir::node& n,
                                                        const kernel_context& ctx)
    {
        auto plan = reduction_plan(g, n);
        if (!plan)
        {
            return status::unimplemented("oneDNN: not a float32 sum/mean");
        }
        const auto in = *g.type_of(n.inputs[0]).dims.num_elements();
        if (!worth_it(ctx, family::reduction, in))
        {
            return status::unimplemented("oneDNN: below the measured crossover");
        }
        return make_plan_kernel(std::move(*plan), ctx.pool, parallel_min_elements);
    }
} // namespace specula::backends::cpu::onednn
