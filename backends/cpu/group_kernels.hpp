#pragma once

// Fusion groups compiled as one blockwise program (see group_kernels.cpp).

#include "backends/cpu/cpu_backend.hpp"

#include <memory>

namespace specula::backends::cpu
{
    // The group whose first member is `leader`, ready to run as one
    // program; null when it must run node by node.
    std::shared_ptr<group_state> plan_group(const ir::graph& g, const ir::node& leader,
                                            const kernel_context& ctx);
    std::unique_ptr<kernel> make_member_kernel(const std::shared_ptr<group_state>& state,
                                               const ir::node& n, ir::dtype elem);
    bool is_last_member(const group_state& state, const ir::node& n);
    bool is_first_member(const group_state& state, const ir::node& n);
    bool is_member(const group_state& state, const ir::node& n);
} // namespace specula::backends::cpu
