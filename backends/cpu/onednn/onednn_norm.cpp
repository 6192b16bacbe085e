// Layer and batch normalisation recognised in the graph as NumPy code writes
// them, with statistics computed from the data:
//   y = (x - x.mean(axis, keepdims=True)) / np.sqrt(x.var(axis, keepdims=True) + eps)
//   optionally y * gamma, then + beta (gamma, beta of the last dim)
// axis -1: oneDNN's layer normalisation over rows; axis 0 of a 2-D x: its
// batch normalisation (inference form, statistics of the batch).

#include "backends/cpu/onednn/onednn_norm.hpp"

#include "backends/cpu/onednn/onednn_context.hpp"
#include "backends/cpu/onednn/onednn_graph_util.hpp"
#include "backends/cpu/onednn/onednn_selection.hpp"
#include "backends/cpu/threading.hpp"

#include <algorithm>

namespace specula::backends::cpu::onednn
{
    namespace
    {
        struct norm_match
        {
            std::vector<const ir::node*> members;
            ir::value_id x = ir::no_id, gamma = ir::no_id, beta = ir::no_id;
            float eps = 0.f;
            bool batch = false; // axis 0 (batch) rather than the last axis (layer)
        };

        // n reduces x over `axis` only, keepdims, float32.
        bool reduces(const ir::graph& g, const ir::node& n, ir::op code, ir::value_id x, int axis)
        {
            if (n.code != code || n.inputs.size() != 1 || n.inputs[0] != x || !is_f32(g, x))
            {
                return false;
            }
            const auto& a = n.attr_as<ir::reduce_attr>();
            const int rank = static_cast<int>(g.type_of(x).dims.rank());
            const bool one_axis =
                a.all_axes ? rank == 1 && axis == 0 : a.axes == std::vector<int>{axis};
            return one_axis && a.keepdims && a.ddof == 0;
        }

        std::int64_t position(const ir::graph& g, const ir::node& n)
        {
            const auto& nodes = g.get_region(n.parent).nodes;
            return std::find(nodes.begin(), nodes.end(), n.id) - nodes.begin();
        }

        const ir::node* sole(const ir::graph& g, ir::value_id v, ir::op code)
        {
            const ir::node* u = only_user(g, v);
            return u != nullptr && u->code == code ? u : nullptr;
        }

        // The per-channel operand of `n` (binary with `v`): shape [C] or [1, C].
        ir::value_id channel_operand(const ir::graph& g, const ir::node& n, ir::value_id v,
                                     std::int64_t c)
        {
            if (n.inputs.size() != 2 || (n.inputs[0] == v) == (n.inputs[1] == v))
            {
                return ir::no_id;
            }
            const ir::value_id o = n.inputs[0] == v ? n.inputs[1] : n.inputs[0];
            auto s = g.type_of(o).dims.static_sizes();
            const bool row =
                s && (*s == std::vector<std::int64_t>{c} || *s == std::vector<std::int64_t>{1, c});
            return row && is_f32(g, o) ? o : ir::no_id;
        }

        // mu = MEAN(x) -> the whole pattern, or nothing.
        std::optional<norm_match> match(const ir::graph& g, const ir::node& mean)
        {
            if (mean.code != ir::op::MEAN || mean.inputs.size() != 1)
            {
                return std::nullopt;
            }
            const ir::value_id x = mean.inputs[0];
            auto shape = g.type_of(x).dims.static_sizes();
            if (!shape || shape->empty() || shape->size() > 6 || !is_f32(g, x))
            {
                return std::nullopt;
            }
            norm_match m;
            m.x = x;
            const int last = static_cast<int>(shape->size()) - 1;
            if (reduces(g, mean, ir::op::MEAN, x, last))
            {
                m.batch = false;
            }
            else if (shape->size() == 2 && reduces(g, mean, ir::op::MEAN, x, 0))
            {
                m.batch = true;
            }
            else
            {
                return std::nullopt;
            }
            const int axis = m.batch ? 0 : last;
            const ir::node* sub = sole(g, mean.outputs[0], ir::op::SUB);
            if (sub == nullptr || sub->inputs[0] != x || sub->inputs[1] != mean.outputs[0])
            {
                return std::nullopt;
            }
            const ir::node* div = sole(g, sub->outputs[0], ir::op::DIV);
            if (div == nullptr || div->inputs[0] != sub->outputs[0])
            {
                return std::nullopt;
            }
            const ir::node* sqrt = g.get(div->inputs[1]).def == ir::no_id
                                       ? nullptr
                                       : &g.get_node(g.get(div->inputs[1]).def);
            if (sqrt == nullptr || sqrt->code != ir::op::SQRT ||
                only_user(g, sqrt->outputs[0]) != div)
            {
                return std::nullopt;
            }
            const ir::node* add = g.get(sqrt->inputs[0]).def == ir::no_id
                                      ? nullptr
                                      : &g.get_node(g.get(sqrt->inputs[0]).def);
            if (add == nullptr || add->code != ir::op::ADD || only_user(g, add->outputs[0]) != sqrt)
            {
                return std::nullopt;
            }
            const bool var_first = g.get(add->inputs[0]).def != ir::no_id &&
                                   g.get_node(g.get(add->inputs[0]).def).code == ir::op::VAR;
            const ir::value_id var_v = add->inputs[var_first ? 0 : 1];
            auto eps = scalar_constant(g, add->inputs[var_first ? 1 : 0]);
            const ir::node_id var_def = g.get(var_v).def;
            if (!eps || var_def == ir::no_id ||
                !reduces(g, g.get_node(var_def), ir::op::VAR, x, axis) ||
                only_user(g, var_v) != add)
            {
                return std::nullopt;
            }
            m.eps = static_cast<float>(*eps);
            m.members = {&mean, &g.get_node(var_def), sub, add, sqrt, div};
            // Optional * gamma, + beta.
            const std::int64_t c = shape->back();
            ir::value_id y = div->outputs[0];
            if (const ir::node* mul = sole(g, y, ir::op::MUL))
            {
                m.gamma = channel_operand(g, *mul, y, c);
                if (m.gamma != ir::no_id)
                {
                    m.members.push_back(mul);
                    y = mul->outputs[0];
                }
            }
            if (const ir::node* plus = sole(g, y, ir::op::ADD))
            {
                m.beta = channel_operand(g, *plus, y, c);
                if (m.beta != ir::no_id)
                {
                    m.members.push_back(plus);
                }
            }
            if (!is_f32(g, m.members.back()->outputs[0]))
            {
                return std::nullopt;
            }
            std::sort(m.members.begin(), m.members.end(),
                      [&](const ir::node* a, const ir::node* b)
                      { return position(g, *a) < position(g, *b); });
            return m;
        }

        std::optional<norm_match> match_group(const ir::graph& g, const fused_group& fg)
        {
            for (const ir::node* n : fg.members)
            {
                if (n->code == ir::op::MEAN)
                {
                    auto m = match(g, *n);
                    if (m && m->members == fg.members)
                    {
                        return m;
                    }
                    return std::nullopt;
                }
            }
            return std::nullopt;
        }
    } // namespace

    std::vector<fused_group> norm_patterns(const ir::graph& g)
    {
        return single_output_groups(
            g,
            [&](const ir::node& n) -> std::optional<std::vector<const ir::node*>>
            {
                auto m = match(g, n);
                if (!m)
                {
                    return std::nullopt;
                }
                return std::move(m->members);
            });
    }

    bool is_norm(const ir::graph& g, const fused_group& fg)
    {
        return match_group(g, fg).has_value();
    }

    result<group_kernel> make_norm_group(const ir::graph& g, const fused_group& fg,
                                         const kernel_context& ctx)
    {
        auto m = match_group(g, fg);
        if (!m)
        {
            return status::unimplemented("oneDNN: not a normalisation");
        }
        const auto shape = *g.type_of(m->x).dims.static_sizes();
        const std::int64_t c = shape.back();
        const std::int64_t n = *g.type_of(m->x).dims.num_elements();
        const std::int64_t rows = c == 0 ? 0 : n / c;
        if (n == 0 || !worth_it(ctx, m->batch ? family::batch_norm : family::layer_norm, n))
        {
            return status::unimplemented("oneDNN: below the measured crossover");
        }
        group_kernel gk;
        gk.m_inputs = {m->x};
        call_plan plan;
        plan.what = m->batch ? "batch_norm" : "layer_norm";
        plan.what += " eps " + std::to_string(m->eps);
        plan.operands = {{DNNL_ARG_SRC, 0, false, {rows, c}}, {DNNL_ARG_DST, 0, true, {rows, c}}};
        auto flags = dnnl::normalization_flags::none;
        // gamma and beta are per-channel: never split with the rows.
        auto per_channel =
            [&](ir::value_id v, int arg, dnnl::normalization_flags flag, const char* name)
        {
            if (v == ir::no_id)
            {
                return;
            }
            flags |= flag;
            plan.operands.push_back(
                {arg, static_cast<int>(gk.m_inputs.size()), false, {c}, false, false, true});
            gk.m_inputs.push_back(v);
            plan.what += name;
        };
        per_channel(m->gamma, DNNL_ARG_SCALE, dnnl::normalization_flags::use_scale, " scale");
        per_channel(m->beta, DNNL_ARG_SHIFT, dnnl::normalization_flags::use_shift, " shift");
        // The statistics the primitive computes: kernel-owned scratch.
        const dnnl::memory::dims stats = {m->batch ? c : rows};
        plan.operands.push_back({DNNL_ARG_MEAN, 0, false, stats, false, true, m->batch});
        plan.operands.push_back({DNNL_ARG_VARIANCE, 0, false, stats, false, true, m->batch});
        plan.rows_independent = !m->batch;
        const bool batch = m->batch;
        const float eps = m->eps;
        plan.make = [batch, eps, flags](const std::vector<dnnl::memory::desc>& mds)
        {
            const auto kind = dnnl::prop_kind::forward_inference;
            if (batch)
            {
                return dnnl::primitive(dnnl::batch_normalization_forward(
                    jit_only(dnnl::batch_normalization_forward::primitive_desc(
                        dnnl::batch_normalization_forward::desc(kind, mds[0], eps, flags),
                        kernel_attr(), host_engine()))));
            }
            return dnnl::primitive(dnnl::layer_normalization_forward(
                jit_only(dnnl::layer_normalization_forward::primitive_desc(
                    dnnl::layer_normalization_forward::desc(kind, mds[0], eps, flags),
                    kernel_attr(), host_engine()))));
        };
        auto k = make_plan_kernel(std::move(plan), ctx.pool, parallel_min_elements);
        if (!k)
        {
            return k.error();
        }
        gk.m_kernel = std::move(k.value());
        return gk;
    }
} // namespace specula::backends::cpu::onednn
