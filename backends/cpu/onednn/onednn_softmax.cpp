// Softmax over the last axis, recognised in the graph as NumPy code writes it:
//   m = x.max(axis=-1, keepdims=True); e = np.exp(x - m)
//   y = e / e.sum(axis=-1, keepdims=True)
// and run as one oneDNN softmax primitive (fast target only).

#include "backends/cpu/onednn/onednn_norm.hpp"

#include "backends/cpu/onednn/onednn_context.hpp"
#include "backends/cpu/onednn/onednn_graph_util.hpp"
#include "backends/cpu/onednn/onednn_selection.hpp"
#include "backends/cpu/threading.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace specula::backends::cpu::onednn
{
    namespace
    {
        // NumPy's result for a row holding NaN or ±inf, which oneDNN's softmax
        // does not reproduce (it clamps exp's argument and its max drops NaN:
        // a NaN row came out with one NaN, NumPy's is all NaN).
        void numpy_row(const float* x, float* y, std::int64_t n)
        {
            float m = -std::numeric_limits<float>::infinity();
            for (std::int64_t j = 0; j < n; ++j)
            {
                m = (std::isnan(x[j]) || std::isnan(m)) ? std::nanf("") : std::max(m, x[j]);
            }
            float s = 0.f;
            for (std::int64_t j = 0; j < n; ++j)
            {
                y[j] = std::exp(x[j] - m);
                s += y[j];
            }
            for (std::int64_t j = 0; j < n; ++j)
            {
                y[j] /= s;
            }
        }

        void fix_non_finite_rows(const kernel_io& io, std::int64_t cols, std::int64_t r0,
                                 std::int64_t r1)
        {
            const auto* x = reinterpret_cast<const float*>(io.in(0).data());
            auto* y = reinterpret_cast<float*>(io.out(0).data());
            for (std::int64_t i = r0; i < r1; ++i)
            {
                const float* row = x + i * cols;
                bool finite = true;
                for (std::int64_t j = 0; j < cols; ++j)
                {
                    finite = finite && std::isfinite(row[j]);
                }
                if (!finite)
                {
                    numpy_row(row, y + i * cols, cols);
                }
            }
        }

        std::int64_t position(const ir::graph& g, const ir::node& n)
        {
            const auto& nodes = g.get_region(n.parent).nodes;
            return std::find(nodes.begin(), nodes.end(), n.id) - nodes.begin();
        }

        // mx = MAX(x, last axis, keepdims) -> the five members, or nothing.
        std::optional<std::vector<const ir::node*>> softmax_members(const ir::graph& g,
                                                                    const ir::node& mx)
        {
            if (!reduces_last_axis_keepdims(g, mx, ir::op::MAX))
            {
                return std::nullopt;
            }
            const ir::value_id x = mx.inputs[0];
            const ir::node* sub = only_user(g, mx.outputs[0]);
            if (sub == nullptr || sub->code != ir::op::SUB || sub->inputs[0] != x ||
                sub->inputs[1] != mx.outputs[0])
            {
                return std::nullopt;
            }
            const ir::node* ex = only_user(g, sub->outputs[0]);
            if (ex == nullptr || ex->code != ir::op::EXP)
            {
                return std::nullopt;
            }
            const auto us = users(g, ex->outputs[0]);
            if (us.size() != 2)
            {
                return std::nullopt;
            }
            const ir::node* sum = us[0]->code == ir::op::SUM ? us[0] : us[1];
            const ir::node* div = us[0]->code == ir::op::SUM ? us[1] : us[0];
            if (!reduces_last_axis_keepdims(g, *sum, ir::op::SUM) || div->code != ir::op::DIV ||
                div->inputs[0] != ex->outputs[0] || div->inputs[1] != sum->outputs[0] ||
                only_user(g, sum->outputs[0]) != div || !is_f32(g, div->outputs[0]))
            {
                return std::nullopt;
            }
            std::vector<const ir::node*> m = {&mx, sub, ex, sum, div};
            std::sort(m.begin(), m.end(),
                      [&](const ir::node* a, const ir::node* b)
                      { return position(g, *a) < position(g, *b); });
            return m;
        }
    } // namespace

    std::vector<fused_group> softmax_patterns(const ir::graph& g)
    {
        return single_output_groups(g, [&](const ir::node& n) { return softmax_members(g, n); });
    }

    bool is_softmax(const ir::graph& g, const fused_group& fg)
    {
        return fg.members.size() == 5 && fg.members.front()->code == ir::op::MAX &&
               softmax_members(g, *fg.members.front()).has_value();
    }

    result<group_kernel> make_softmax_group(const ir::graph& g, const fused_group& fg,
                                            const kernel_context& ctx)
    {
        if (!is_softmax(g, fg))
        {
            return status::unimplemented("oneDNN: not a softmax");
        }
        const ir::value_id x = fg.members.front()->inputs[0];
        const auto shape = *g.type_of(x).dims.static_sizes();
        const std::int64_t cols = shape.back();
        const std::int64_t rows =
            *g.type_of(x).dims.num_elements() / std::max<std::int64_t>(cols, 1);
        if (rows * cols == 0 || !worth_it(ctx, family::softmax, rows * cols))
        {
            return status::unimplemented("oneDNN: below the measured crossover");
        }
        call_plan plan;
        plan.what = "softmax";
        plan.operands = {{DNNL_ARG_SRC, 0, false, {rows, cols}},
                         {DNNL_ARG_DST, 0, true, {rows, cols}}};
        plan.make = [](const std::vector<dnnl::memory::desc>& mds)
        {
            return dnnl::primitive(
                dnnl::softmax_forward(jit_only(dnnl::softmax_forward::primitive_desc(
                    dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, mds[0], 1),
                    kernel_attr(), host_engine()))));
        };
        plan.after = [cols](const kernel_io& io, std::int64_t r0, std::int64_t r1)
        { fix_non_finite_rows(io, cols, r0, r1); };
        auto k = make_plan_kernel(std::move(plan), ctx.pool, parallel_min_elements);
        if (!k)
        {
            return k.error();
        }
        group_kernel gk;
        gk.m_inputs = {x};
        gk.m_kernel = std::move(k.value());
        return gk;
    }
} // namespace specula::backends::cpu::onednn
