#pragma once

// float32 reductions (sum and mean over static axes) on oneDNN.

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/onednn/onednn_plan.hpp"

#include <optional>

namespace specula::backends::cpu::onednn
{
    std::optional<call_plan> reduction_plan(const ir::graph& g, const ir::node& n);
    result<std::unique_ptr<kernel>> make_reduction_node(const ir::graph& g, const ir::node& n,
                                                        const kernel_context& ctx);
} // namespace specula::backends::cpu::onednn
