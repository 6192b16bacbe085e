#include "backends/cpu/onednn/onednn_eltwise.hpp"

#include "backends/cpu/onednn/onednn_context.hpp"
#include "backends/cpu/onednn/onednn_graph_util.hpp"
#include "backends/cpu/onednn/onednn_selection.hpp"
#include "backends/cpu/threading.hpp"
#include "backends/fused_groups.hpp"

#include <algorithm>

namespace specula::backends::cpu::onednn
{
    namespace
    {
        using alg = dnnl::algorithm;

        chain_step eltwise(alg a, float alpha = 0.f, float beta = 0.f)
        {
            chain_step s;
            s.alg = a;
            s.alpha = alpha;
            s.beta = beta;
            return s;
        }

        std::optional<alg> unary_alg(ir::op code)
        {
            switch (code)
            {
            case ir::op::ABS:
                return alg::eltwise_abs;
            // No LOG: oneDNN 2.6's log measured 2-4x slower than NumPy's
            // AVX-512 float32 log here (README, "Kernel selection"). No EXP:
            // its exp clamps the argument and turns NaN into a number (its
            // logistic keeps NaN and is used for 1/(1+exp(-x))).
            case ir::op::SQRT:
                return alg::eltwise_sqrt;
            case ir::op::SQUARE:
                return alg::eltwise_square;
            case ir::op::TANH:
                return alg::eltwise_tanh;
            default:
                return std::nullopt;
            }
        }

        std::optional<alg> binary_alg(ir::op code)
        {
            switch (code)
            {
            case ir::op::ADD:
                return alg::binary_add;
            case ir::op::SUB:
                return alg::binary_sub;
            case ir::op::MUL:
                return alg::binary_mul;
            case ir::op::DIV:
                return alg::binary_div;
            // No MAXIMUM/MINIMUM: oneDNN 2.6's max/min (binary, relu, clip)
            // drop a NaN np.maximum would propagate (vmaxps semantics).
            default:
                return std::nullopt;
            }
        }

        // `v op c` (or `c op v` when !v_first) as one exact eltwise step:
        // alpha*v + beta with alpha = ±1 or beta = 0 rounds like the binary op.
        std::optional<chain_step> constant_step(ir::op code, bool v_first, double c)
        {
            const float f = static_cast<float>(c);
            switch (code)
            {
            case ir::op::ADD:
                return eltwise(alg::eltwise_linear, 1.f, f);
            case ir::op::SUB:
                return v_first ? eltwise(alg::eltwise_linear, 1.f, -f)
                               : eltwise(alg::eltwise_linear, -1.f, f);
            case ir::op::MUL:
                return eltwise(alg::eltwise_linear, f, 0.f);
            default:
                return std::nullopt;
            }
        }

        struct builder_state
        {
            const ir::graph& g;
            chain c;
            ir::value_id cur = ir::no_id;

            int add_input(ir::value_id v)
            {
                for (std::size_t i = 0; i < c.inputs.size(); ++i)
                {
                    if (c.inputs[i] == v)
                    {
                        return static_cast<int>(i);
                    }
                }
                c.inputs.push_back(v);
                return static_cast<int>(c.inputs.size()) - 1;
            }

            bool binary_step(alg a, ir::value_id other)
            {
                if (!is_f32(g, other) || !broadcasts_to(g, other, c.out_shape))
                {
                    return false;
                }
                chain_step s;
                s.binary = true;
                s.alg = a;
                s.operand = add_input(other);
                c.steps.push_back(s);
                return true;
            }

            // Member n applied to the running value `cur`.
            bool post(const ir::node& n)
            {
                if (auto a = unary_alg(n.code); a && n.inputs[0] == cur)
                {
                    c.steps.push_back(eltwise(*a));
                    return true;
                }
                if (n.code == ir::op::NEG && n.inputs[0] == cur)
                {
                    c.steps.push_back(eltwise(alg::eltwise_linear, -1.f, 0.f));
                    return true;
                }
                auto a = binary_alg(n.code);
                if (!a || n.inputs.size() != 2)
                {
                    return false;
                }
                if (n.inputs[0] == cur && n.inputs[1] == cur)
                {
                    if (n.code != ir::op::MUL)
                    {
                        return false;
                    }
                    c.steps.push_back(eltwise(alg::eltwise_square)); // x*x
                    return true;
                }
                const bool v_first = n.inputs[0] == cur;
                const ir::value_id other = v_first ? n.inputs[1] : n.inputs[0];
                if (!v_first && n.inputs[1] != cur)
                {
                    return false;
                }
                if (auto cst = scalar_constant(g, other))
                {
                    if (auto s = constant_step(n.code, v_first, *cst))
                    {
                        c.steps.push_back(*s);
                        return true;
                    }
                }
                if (v_first || ir::has(n.code, ir::prop::COMMUTATIVE))
                {
                    return binary_step(*a, other);
                }
                if (n.code == ir::op::SUB) // o - v = (-v) + o, exact
                {
                    c.steps.push_back(eltwise(alg::eltwise_linear, -1.f, 0.f));
                    return binary_step(alg::binary_add, other);
                }
                return false; // o / v
            }

            // The chain's first member: the primitive.
            bool first(const ir::node& n)
            {
                if (n.inputs.empty())
                {
                    return false;
                }
                const auto a = binary_alg(n.code);
                if (a && n.inputs.size() == 2 && !scalar_constant(g, n.inputs[0]) &&
                    !scalar_constant(g, n.inputs[1]) && n.inputs[0] != n.inputs[1])
                {
                    // binary(src0, src1): src0 must have the output's shape.
                    ir::value_id x = n.inputs[0], y = n.inputs[1];
                    const bool x_full = has_shape(g, x, c.out_shape);
                    if (!x_full && !has_shape(g, y, c.out_shape))
                    {
                        return false;
                    }
                    if (!x_full && n.code == ir::op::DIV)
                    {
                        return false;
                    }
                    if (!is_f32(g, x) || !is_f32(g, y))
                    {
                        return false;
                    }
                    cur = x_full ? x : y;
                    add_input(cur);
                    if (!binary_step(x_full || n.code != ir::op::SUB ? *a : alg::binary_sub,
                                     x_full ? y : x))
                    {
                        return false;
                    }
                    if (!x_full && n.code == ir::op::SUB)
                    {
                        // y - x computed, x - y wanted: negation is exact.
                        c.steps.push_back(eltwise(alg::eltwise_linear, -1.f, 0.f));
                    }
                    return true;
                }
                // An eltwise primitive on the member's array operand.
                ir::value_id src = n.inputs[0];
                if (a && n.inputs.size() == 2 && scalar_constant(g, n.inputs[0]))
                {
                    src = n.inputs[1];
                }
                if (!is_f32(g, src) || !has_shape(g, src, c.out_shape))
                {
                    return false;
                }
                cur = src;
                add_input(src);
                const std::size_t before = c.steps.size();
                if (!post(n) || c.steps.size() != before + 1 || c.steps.back().binary)
                {
                    return false; // the primitive must be one eltwise step
                }
                return true;
            }

            // NEG, EXP, ADD 1, DIV 1/· starting at members[i]: the logistic function.
            bool logistic_at(const std::vector<const ir::node*>& m, std::size_t i) const
            {
                if (i + 4 > m.size() || m[i]->code != ir::op::NEG ||
                    m[i + 1]->code != ir::op::EXP || m[i + 2]->code != ir::op::ADD ||
                    m[i + 3]->code != ir::op::DIV)
                {
                    return false;
                }
                const ir::node& add = *m[i + 2];
                const ir::node& div = *m[i + 3];
                const ir::value_id e = m[i + 1]->outputs[0];
                const ir::value_id one = add.inputs[0] == e ? add.inputs[1] : add.inputs[0];
                auto c1 = scalar_constant(g, one);
                auto c2 = scalar_constant(g, div.inputs[0]);
                return m[i + 1]->inputs[0] == m[i]->outputs[0] && c1 && *c1 == 1.0 && c2 &&
                       *c2 == 1.0 && div.inputs[1] == add.outputs[0] &&
                       (add.inputs[0] == e || add.inputs[1] == e);
            }
        };

        family family_of(const chain& c)
        {
            bool tanh = false;
            for (const chain_step& s : c.steps)
            {
                if (s.alg == alg::eltwise_logistic || s.alg == alg::eltwise_sqrt)
                {
                    return family::eltwise_sqrt_logistic;
                }
                tanh = tanh || s.alg == alg::eltwise_tanh;
            }
            return tanh                 ? family::eltwise_tanh
                   : c.steps.size() > 1 ? family::eltwise_chain
                                        : family::eltwise_cheap;
        }

        std::int64_t elements(const std::vector<std::int64_t>& shape)
        {
            std::int64_t n = 1;
            for (auto d : shape)
            {
                n *= d;
            }
            return n;
        }
    } // namespace

    std::optional<chain> chain_of(const ir::graph& g, const std::vector<const ir::node*>& members)
    {
        if (members.empty())
        {
            return std::nullopt;
        }
        builder_state st{g, {}, ir::no_id};
        const ir::node& last = *members.back();
        if (last.outputs.size() != 1 || !is_f32(g, last.outputs[0]))
        {
            return std::nullopt;
        }
        auto shape = g.type_of(last.outputs[0]).dims.static_sizes();
        if (!shape || shape->empty() || shape->size() > 6)
        {
            return std::nullopt;
        }
        st.c.out_shape = *shape;
        st.c.output = last.outputs[0];
        for (std::size_t i = 0; i < members.size(); ++i)
        {
            const ir::node& n = *members[i];
            if (n.outputs.size() != 1 || !is_f32(g, n.outputs[0]) ||
                !has_shape(g, n.outputs[0], st.c.out_shape))
            {
                return std::nullopt;
            }
            if (st.logistic_at(members, i))
            {
                if (i == 0)
                {
                    const ir::value_id src = n.inputs[0];
                    if (!is_f32(g, src) || !has_shape(g, src, st.c.out_shape))
                    {
                        return std::nullopt;
                    }
                    st.add_input(src);
                }
                else if (n.inputs[0] != st.cur)
                {
                    return std::nullopt;
                }
                st.c.steps.push_back(eltwise(alg::eltwise_logistic));
                st.cur = members[i + 3]->outputs[0];
                i += 3;
                continue;
            }
            if (!(i == 0 ? st.first(n) : st.post(n)))
            {
                return std::nullopt;
            }
            st.cur = n.outputs[0];
        }
        return st.c;
    }

    std::optional<call_plan> chain_plan(const ir::graph& g, const chain& c)
    {
        const std::int64_t n = elements(c.out_shape);
        // Without broadcasting every operand is the output's shape or one
        // element: one flat dimension, split evenly across the lanes.
        bool flat = true;
        for (ir::value_id v : c.inputs)
        {
            auto e = g.type_of(v).dims.num_elements();
            flat = flat && e && (*e == n || *e == 1);
        }
        const std::size_t rank = c.out_shape.size();
        auto dims_of = [&](ir::value_id v)
        {
            if (flat)
            {
                return dnnl::memory::dims{*g.type_of(v).dims.num_elements()};
            }
            auto s = *g.type_of(v).dims.static_sizes();
            dnnl::memory::dims d(rank - s.size(), 1);
            d.insert(d.end(), s.begin(), s.end());
            return d;
        };
        // oneDNN 2.6 runs an eltwise primitive with post-ops only in its
        // scalar reference code: a head eltwise with post-ops becomes
        // binary(x * 1) followed by the eltwise, exact and JIT-compiled.
        std::vector<chain_step> steps = c.steps;
        if (!steps.front().binary && steps.size() > 1)
        {
            chain_step times_one;
            times_one.binary = true;
            times_one.alg = alg::binary_mul;
            times_one.operand = -1;
            steps.insert(steps.begin(), times_one);
        }
        call_plan plan;
        const chain_step& head = steps.front();
        plan.what = head.binary ? "binary" : "eltwise";
        plan.operands.push_back(
            {head.binary ? DNNL_ARG_SRC_0 : DNNL_ARG_SRC, 0, false, dims_of(c.inputs[0])});
        if (head.binary && head.operand < 0)
        {
            operand one{DNNL_ARG_SRC_1, 0, false,
                        dnnl::memory::dims(plan.operands[0].dims.size(), 1)};
            one.one = true;
            plan.operands.push_back(one);
        }
        else if (head.binary)
        {
            plan.operands.push_back({DNNL_ARG_SRC_1, head.operand, false,
                                     dims_of(c.inputs[static_cast<std::size_t>(head.operand)])});
        }
        for (std::size_t i = 1; i < steps.size(); ++i)
        {
            const chain_step& s = steps[i];
            if (s.binary)
            {
                plan.operands.push_back(
                    {DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(i - 1)) | DNNL_ARG_SRC_1,
                     s.operand, false, dims_of(c.inputs[static_cast<std::size_t>(s.operand)])});
            }
        }
        plan.operands.push_back({DNNL_ARG_DST, 0, true,
                                 flat ? dnnl::memory::dims{n} : dnnl::memory::dims(c.out_shape)});
        for (const chain_step& s : steps)
        {
            plan.what += " " + std::to_string(static_cast<int>(s.alg)) + "(" +
                         std::to_string(s.alpha) + "," + std::to_string(s.beta) + "," +
                         std::to_string(s.operand) + ")";
        }
        plan.make = [steps](const std::vector<dnnl::memory::desc>& mds)
        {
            const chain_step& head = steps.front();
            dnnl::post_ops ops;
            std::size_t next_md = head.binary ? 2 : 1; // post-op operands follow the sources
            for (std::size_t i = 1; i < steps.size(); ++i)
            {
                const chain_step& s = steps[i];
                if (s.binary)
                {
                    ops.append_binary(s.alg, mds[next_md++]);
                }
                else
                {
                    ops.append_eltwise(1.f, s.alg, s.alpha, s.beta);
                }
            }
            dnnl::primitive_attr attr = kernel_attr();
            attr.set_post_ops(ops);
            const dnnl::memory::desc& dst = mds.back();
            if (head.binary)
            {
                return dnnl::primitive(dnnl::binary(jit_only(dnnl::binary::primitive_desc(
                    dnnl::binary::desc(head.alg, mds[0], mds[1], dst), attr, host_engine()))));
            }
            return dnnl::primitive(
                dnnl::eltwise_forward(jit_only(dnnl::eltwise_forward::primitive_desc(
                    dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, head.alg,
                                                mds[0], head.alpha, head.beta),
                    attr, host_engine()))));
        };
        return plan;
    }

    std::vector<fused_group> chain_patterns(const ir::graph& g)
    {
        std::vector<fused_group> found;
        for (fused_group& fg : find_fused_groups(g))
        {
            if (fg.outputs.size() != 1)
            {
                continue;
            }
            auto c = chain_of(g, fg.members);
            if (!c)
            {
                continue;
            }
            fg.group = -1; // ours: compile_group routes it to make_onednn_group
            found.push_back(std::move(fg));
        }
        return found;
    }

    namespace
    {
        // The kernel of `c`, whose inputs arrive in the order of `order`
        // (the chain's own order for a group, the node's for a lone node).
        result<std::unique_ptr<kernel>> chain_kernel(const ir::graph& g, const chain& c,
                                                     const std::vector<ir::value_id>& order,
                                                     const kernel_context& ctx)
        {
            if (!worth_it(ctx, family_of(c), elements(c.out_shape)))
            {
                return status::unimplemented("oneDNN: below the measured crossover");
            }
            auto plan = chain_plan(g, c);
            if (!plan)
            {
                return status::unimplemented("oneDNN: no plan for this chain");
            }
            for (operand& o : plan->operands)
            {
                if (!o.output && !o.one)
                {
                    const ir::value_id v = c.inputs[static_cast<std::size_t>(o.index)];
                    o.index =
                        static_cast<int>(std::find(order.begin(), order.end(), v) - order.begin());
                }
            }
            return make_plan_kernel(std::move(*plan), ctx.pool, parallel_min_elements);
        }
    } // namespace

    result<group_kernel> make_chain_group(const ir::graph& g, const fused_group& fg,
                                          const kernel_context& ctx)
    {
        auto c = chain_of(g, fg.members);
        if (!c || fg.outputs.size() != 1 || fg.outputs[0] != c->output)
        {
            return status::unimplemented("oneDNN: not an elementwise chain");
        }
        auto k = chain_kernel(g, *c, c->inputs, ctx);
        if (!k)
        {
            return k.error();
        }
        group_kernel gk;
        gk.m_inputs = c->inputs;
        gk.m_kernel = std::move(k.value());
        return gk;
    }

    result<std::unique_ptr<kernel>> make_chain_node(const ir::graph& g, const ir::node& n,
                                                    const kernel_context& ctx)
    {
        if (!ir::has(n.code, ir::prop::ELEMENTWISE))
        {
            return status::unimplemented("oneDNN: not elementwise");
        }
        auto c = chain_of(g, {&n});
        if (!c)
        {
            return status::unimplemented("oneDNN: no eltwise/binary primitive for this node");
        }
        return chain_kernel(g, *c, n.inputs, ctx);
    }
} // namespace specula::backends::cpu::onednn
