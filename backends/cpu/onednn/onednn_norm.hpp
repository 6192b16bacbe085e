#pragma once

// Row-wise patterns of NumPy code run as one oneDNN primitive (fast target):
// softmax over the last axis (onednn_softmax.cpp), layer normalisation over
// the last axis and batch normalisation over axis 0 with computed statistics
// (onednn_norm.cpp). Each recognises the nodes as the converter emits them.

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/onednn/onednn_plan.hpp"
#include "backends/fused_groups.hpp"

namespace specula::backends::cpu::onednn
{
    std::vector<fused_group> softmax_patterns(const ir::graph& g);
    bool is_softmax(const ir::graph& g, const fused_group& fg);
    result<group_kernel> make_softmax_group(const ir::graph& g, const fused_group& fg,
                                            const kernel_context& ctx);

    // (x - mu) / np.sqrt(var + eps) [* gamma] [+ beta], mu = x.mean(axis,
    // keepdims=True), var = x.var(axis, keepdims=True): axis -1 (layer) or 0
    // of a 2-D x (batch).
    std::vector<fused_group> norm_patterns(const ir::graph& g);
    bool is_norm(const ir::graph& g, const fused_group& fg);
    result<group_kernel> make_norm_group(const ir::graph& g, const fused_group& fg,
                                         const kernel_context& ctx);
} // namespace specula::backends::cpu::onednn
