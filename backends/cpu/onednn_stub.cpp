// Built when oneDNN is not found: every float32 node takes the exact path.

#include "backends/cpu/cpu_backend.hpp"

namespace specula::backends::cpu
{
    result<std::unique_ptr<kernel>> make_onednn_kernel(const ir::graph&, const ir::node&,
                                                       const kernel_context&)
    {
        return status::unimplemented("built without oneDNN");
    }

    std::vector<fused_group> onednn_pattern_groups(const ir::graph&, const kernel_context&)
    {
        return {};
    }

    result<group_kernel> make_onednn_group(const ir::graph&, const fused_group&,
                                           const kernel_context&)
    {
        return status::unimplemented("built without oneDNN");
    }

    std::int64_t onednn_primitives_created()
    {
        return 0;
    }
} // namespace specula::backends::cpu
