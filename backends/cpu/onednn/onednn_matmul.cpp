#include "backends/cpu/onednn/onednn_matmul.hpp"

#include "backends/cpu/onednn/onednn_context.hpp"
#include "backends/cpu/onednn/onednn_graph_util.hpp"
#include "backends/cpu/onednn/onednn_plan.hpp"

#include "ir/passes/fuse_elementwise.hpp"

#include <algorithm>
#include <optional>

namespace specula::backends::cpu::onednn
{
    namespace
    {
        using tag = dnnl::memory::format_tag;

        std::string key_of(const matmul_spec& s)
        {
            return "matmul " + std::to_string(static_cast<int>(s.elem)) + " " +
                   std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) +
                   (s.bias ? " bias" : "") + " act" + std::to_string(static_cast<int>(s.act));
        }

        dnnl::memory::desc desc2(std::int64_t r, std::int64_t c, dnnl::memory::data_type t)
        {
            return dnnl::memory::desc({r, c}, t, tag::ab);
        }

        // The primitive of `s` over the given operand descriptors (rows may
        // be a lane's share of s.m): bias row and tanh as post-ops.
        dnnl::primitive build(const matmul_spec& s, const dnnl::memory::desc& a_md,
                              const dnnl::memory::desc& w_md, const dnnl::memory::desc& c_md)
        {
            dnnl::post_ops ops;
            // ReLU is not a post-op: oneDNN's relu (vmaxps) turns NaN into 0
            // where np.maximum(y, 0) keeps it; the kernel applies it after.
            if (s.act == activation::tanh)
            {
                ops.append_eltwise(1.f, dnnl::algorithm::eltwise_tanh, 0.f, 0.f);
            }
            dnnl::primitive_attr attr = kernel_attr();
            attr.set_post_ops(ops);
            const auto desc = s.bias ? dnnl::matmul::desc(a_md, w_md, desc2(1, s.n, s.elem), c_md)
                                     : dnnl::matmul::desc(a_md, w_md, c_md);
            return dnnl::matmul(dnnl::matmul::primitive_desc(desc, attr, host_engine()));
        }

        // A [rows, cols] float32 operand of the product, or nothing.
        std::optional<std::pair<std::int64_t, std::int64_t>> matrix_of(const ir::graph& g,
                                                                       ir::value_id v)
        {
            const ir::value_type& t = g.type_of(v);
            auto sizes = t.dims.static_sizes();
            if (t.elem != ir::dtype::float32 || !sizes || sizes->size() != 2)
            {
                return std::nullopt;
            }
            return std::make_pair((*sizes)[0], (*sizes)[1]);
        }

        std::optional<matmul_spec> spec_of_matmul(const ir::graph& g, const ir::node& n)
        {
            if (n.code != ir::op::MATMUL || n.inputs.size() != 2)
            {
                return std::nullopt;
            }
            auto a = matrix_of(g, n.inputs[0]);
            auto w = matrix_of(g, n.inputs[1]);
            if (!a || !w || a->second != w->first)
            {
                return std::nullopt;
            }
            matmul_spec s;
            s.m = a->first;
            s.k = a->second;
            s.n = w->second;
            if (s.m * s.k * s.n < min_matmul_work)
            {
                return std::nullopt;
            }
            return s;
        }

        ir::value_id other_operand(const ir::node& n, ir::value_id v)
        {
            if (n.inputs.size() != 2 || (n.inputs[0] == v) == (n.inputs[1] == v))
            {
                return ir::no_id;
            }
            return n.inputs[0] == v ? n.inputs[1] : n.inputs[0];
        }

        bool is_bias_row(const ir::graph& g, ir::value_id b, std::int64_t n)
        {
            const ir::value_type& t = g.type_of(b);
            auto sizes = t.dims.static_sizes();
            if (t.elem != ir::dtype::float32 || !sizes)
            {
                return false;
            }
            return *sizes == std::vector<std::int64_t>{n} ||
                   *sizes == std::vector<std::int64_t>{1, n};
        }

        bool is_zero_constant(const ir::graph& g, ir::value_id v)
        {
            const ir::node_id def = g.get(v).def;
            if (def == ir::no_id || g.get_node(def).code != ir::op::CONSTANT)
            {
                return false;
            }
            const auto& c = g.get_node(def).attr_as<ir::constant_attr>();
            return c.size() == 1 && c.element(0).as_double() == 0.0;
        }

        // np.maximum(y, 0): y where y >= 0 or y is NaN (so -0.0 and NaN stay).
        void relu_like_numpy(float* y, std::int64_t n)
        {
            for (std::int64_t i = 0; i < n; ++i)
            {
                const float v = y[i];
                y[i] = (v >= 0.f || v != v) ? v : 0.f;
            }
        }

        // The product as a plan over our pool's lanes: each lane multiplies
        // its rows of A by the whole W with a single-threaded primitive (no
        // OpenMP team: threading.hpp), ReLU applied to its rows after.
        call_plan plan_of(const matmul_spec& s)
        {
            call_plan plan;
            plan.what = key_of(s);
            plan.operands.push_back({DNNL_ARG_SRC, 0, false, {s.m, s.k}});
            plan.operands.push_back({DNNL_ARG_WEIGHTS, 1, false, {s.k, s.n}, false, false, true});
            if (s.bias)
            {
                plan.operands.push_back({DNNL_ARG_BIAS, 2, false, {1, s.n}, false, false, true});
            }
            plan.operands.push_back({DNNL_ARG_DST, 0, true, {s.m, s.n}});
            plan.make = [s](const std::vector<dnnl::memory::desc>& mds)
            { return build(s, mds.front(), mds[1], mds.back()); };
            if (s.act == activation::relu)
            {
                const std::int64_t n = s.n;
                plan.after = [n](const kernel_io& io, std::int64_t r0, std::int64_t r1) {
                    relu_like_numpy(reinterpret_cast<float*>(io.out(0).data()) + r0 * n,
                                    (r1 - r0) * n);
                };
            }
            return plan;
        }

        // Lanes split the rows once a lane's share is worth a wake-up:
        // about min_split_work multiply-adds in all.
        std::int64_t split_min_outputs(const matmul_spec& s)
        {
            return std::max<std::int64_t>(1, min_split_work / std::max<std::int64_t>(s.k, 1));
        }
    } // namespace

    result<std::shared_ptr<dnnl::primitive>> matmul_primitive(const matmul_spec& spec)
    {
        try
        {
            return cached_primitive(key_of(spec),
                                    [&]
                                    {
                                        return build(spec, desc2(spec.m, spec.k, spec.elem),
                                                     desc2(spec.k, spec.n, spec.elem),
                                                     desc2(spec.m, spec.n, spec.elem));
                                    });
        }
        catch (const dnnl::error& e)
        {
            // "Unimplemented" (or any refusal) is a normal answer: fall back.
            return status::unimplemented(std::string("oneDNN: ") + e.what());
        }
    }

    std::vector<fused_group> matmul_patterns(const ir::graph& g)
    {
        std::vector<fused_group> found;
        for (ir::region_id r = 0; r < g.num_regions(); ++r)
        {
            const ir::region& reg = g.get_region(r);
            for (ir::node_id id : reg.nodes)
            {
                const ir::node& mm = g.get_node(id);
                auto spec = spec_of_matmul(g, mm);
                if (!spec)
                {
                    continue;
                }
                const ir::node* add = only_user(g, mm.outputs[0]);
                if (add == nullptr || add->code != ir::op::ADD ||
                    !is_bias_row(g, other_operand(*add, mm.outputs[0]), spec->n))
                {
                    continue;
                }
                fused_group fg;
                fg.region = r;
                fg.members = {&mm, add};
                const ir::node* act = only_user(g, add->outputs[0]);
                if (act != nullptr && act->outputs.size() == 1 &&
                    g.type_of(act->outputs[0]).elem == ir::dtype::float32 &&
                    ((act->code == ir::op::MAXIMUM &&
                      is_zero_constant(g, other_operand(*act, add->outputs[0]))) ||
                     act->code == ir::op::TANH))
                {
                    fg.members.push_back(act);
                }
                if (finish_group(g, fg) && fg.outputs.size() == 1)
                {
                    found.push_back(std::move(fg));
                }
            }
        }
        return found;
    }

    result<group_kernel> make_matmul_group(const ir::graph& g, const fused_group& fg,
                                           const kernel_context& ctx)
    {
        auto spec = spec_of_matmul(g, *fg.members.front());
        if (!spec || fg.members.size() < 2)
        {
            return status::unimplemented("not a matmul pattern");
        }
        const ir::node& mm = *fg.members[0];
        const ir::node& add = *fg.members[1];
        spec->bias = true;
        if (fg.members.size() == 3)
        {
            spec->act = fg.members[2]->code == ir::op::TANH ? activation::tanh : activation::relu;
        }
        auto k = make_plan_kernel(plan_of(*spec), ctx.pool, split_min_outputs(*spec));
        if (!k)
        {
            return k.error();
        }
        group_kernel gk;
        gk.m_inputs = {mm.inputs[0], mm.inputs[1], other_operand(add, mm.outputs[0])};
        gk.m_kernel = std::move(k.value());
        return gk;
    }

    result<std::unique_ptr<kernel>> make_matmul_node(const ir::graph& g, const ir::node& n,
                                                     const kernel_context& ctx)
    {
        auto spec = spec_of_matmul(g, n);
        if (!spec)
        {
            return status::unimplemented("not a large float32 matmul");
        }
        return make_plan_kernel(plan_of(*spec), ctx.pool, split_min_outputs(*spec));
    }
} // namespace specula::backends::cpu::onednn
