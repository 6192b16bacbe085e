// Built when oneDNN is not found: every float32 node takes the exact path.

#include "backends/cpu/cpu_backend.hpp"

namespace specula::backends::cpu
{
    result<std::unique_ptr<kernel>> make_onednn_kernel(const ir::graph&, const ir::node&,
                                                       const kernel_context&)
    {
        return status::unimplemented("built without oneDNN");
    }
} // namespace specula::backends::cpu
