// The oneDNN path's entry points: float32 only, in the `fast` target only
// (target.exact false), and only at sizes where oneDNN's per-call cost pays
// off; everything else answers "unimplemented" and takes the exact path.

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/onednn/onednn_context.hpp"
#include "backends/cpu/onednn/onednn_eltwise.hpp"
#include "backends/cpu/onednn/onednn_matmul.hpp"
#include "backends/cpu/onednn/onednn_norm.hpp"
#include "backends/cpu/onednn/onednn_reduction.hpp"

namespace specula::backends::cpu
{
    namespace
    {
        bool enabled(const kernel_context& ctx)
        {
            return !ctx.exact && ctx.p_options != nullptr && ctx.p_options->use_onednn;
        }

        // Every pattern is float32: a graph without a float32 value has none,
        // and the searches (fused groups among them) are compile time spent
        // on each float64 graph.
        bool has_float32(const ir::graph& g)
        {
            for (ir::node_id n : g.walk())
            {
                for (ir::value_id v : g.get_node(n).outputs)
                {
                    if (g.type_of(v).elem == ir::dtype::float32)
                    {
                        return true;
                    }
                }
            }
            return false;
        }
    } // namespace

    result<std::unique_ptr<kernel>> make_onednn_kernel(const ir::graph& g, const ir::node& n,
                                                       const kernel_context& ctx)
    {
        if (!enabled(ctx))
        {
            return status::unimplemented("oneDNN: exact target");
        }
        if (n.code == ir::op::MATMUL)
        {
            return onednn::make_matmul_node(g, n, ctx);
        }
        if (ir::has(n.code, ir::prop::REDUCTION))
        {
            return onednn::make_reduction_node(g, n, ctx);
        }
        return onednn::make_chain_node(g, n, ctx);
    }

    std::vector<fused_group> onednn_pattern_groups(const ir::graph& g, const kernel_context& ctx)
    {
        if (!enabled(ctx) || !has_float32(g))
        {
            return {};
        }
        // Matmul chains first: a matmul's bias add and activation go to the
        // matmul primitive, not to an eltwise chain.
        std::vector<fused_group> found = onednn::matmul_patterns(g);
        for (auto* more :
             {&onednn::softmax_patterns, &onednn::norm_patterns, &onednn::chain_patterns})
        {
            for (fused_group& fg : more(g))
            {
                found.push_back(std::move(fg));
            }
        }
        return found;
    }

    result<group_kernel> make_onednn_group(const ir::graph& g, const fused_group& fg,
                                           const kernel_context& ctx)
    {
        if (!enabled(ctx) || fg.members.empty())
        {
            return status::unimplemented("oneDNN: not a pattern group");
        }
        if (fg.members.front()->code == ir::op::MATMUL)
        {
            return onednn::make_matmul_group(g, fg, ctx);
        }
        if (onednn::is_softmax(g, fg))
        {
            return onednn::make_softmax_group(g, fg, ctx);
        }
        if (onednn::is_norm(g, fg))
        {
            return onednn::make_norm_group(g, fg, ctx);
        }
        return onednn::make_chain_group(g, fg, ctx);
    }

    std::int64_t onednn_primitives_created()
    {
        return onednn::primitives_created();
    }
} // namespace specula::backends::cpu
