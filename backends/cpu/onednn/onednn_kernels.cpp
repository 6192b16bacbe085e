// The oneDNN path's entry points: float32 only, in the `fast` target only
// (target.exact false), and only at sizes where oneDNN's per-call cost pays
// off; everything else answers "unimplemented" and takes the exact path.

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/onednn/onednn_context.hpp"
#include "backends/cpu/onednn/onednn_matmul.hpp"

namespace specula::backends::cpu
{
    namespace
    {
        bool enabled(const kernel_context& ctx)
        {
            return !ctx.exact && ctx.p_options != nullptr && ctx.p_options->use_onednn;
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
            return onednn::make_matmul_node(g, n);
        }
        return status::unimplemented("oneDNN: no primitive for this op");
    }

    std::vector<fused_group> onednn_pattern_groups(const ir::graph& g, const kernel_context& ctx)
    {
        if (!enabled(ctx))
        {
            return {};
        }
        return onednn::matmul_patterns(g);
    }

    result<group_kernel> make_onednn_group(const ir::graph& g, const fused_group& fg,
                                           const kernel_context& ctx)
    {
        if (!enabled(ctx) || fg.members.empty() || fg.members.front()->code != ir::op::MATMUL)
        {
            return status::unimplemented("oneDNN: not a pattern group");
        }
        return onednn::make_matmul_group(g, fg);
    }

    std::int64_t onednn_primitives_created()
    {
        return onednn::primitives_created();
    }
} // namespace specula::backends::cpu
