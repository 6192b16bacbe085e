#include "backends/cpu/onednn/onednn_selection.hpp"

#include <limits>

namespace specula::backends::cpu::onednn
{
    std::int64_t min_elements(family f)
    {
        // Crossovers measured with `bench_cpu onednn` (README, "Kernel selection").
        constexpr std::int64_t never = std::numeric_limits<std::int64_t>::max();
        switch (f)
        {
        // One memory-bound op: NumPy's own SIMD loop is as fast at every size.
        case family::eltwise_cheap:
            return never;
        // Even with the exact path's fused group and 2 lanes (README, table).
        case family::eltwise_chain:
            return 262144;
        case family::eltwise_tanh:
            return 262144;
        case family::eltwise_sqrt_logistic:
            return 1024;
        case family::reduction:
            return 16384;
        case family::softmax:
            return 4096;
        case family::layer_norm:
            return 4096;
        // oneDNN 2.6's batch normalisation of a plain [N, C] array computing
        // its statistics ran 2-8x slower than the exact path at every size.
        case family::batch_norm:
            return never;
        }
        return never;
    }

    bool worth_it(const kernel_context& ctx, family f, std::int64_t elements)
    {
        const std::int64_t forced =
            ctx.p_options != nullptr ? ctx.p_options->onednn_min_elements : -1;
        return elements >= (forced >= 0 ? forced : min_elements(f));
    }
} // namespace specula::backends::cpu::onednn
