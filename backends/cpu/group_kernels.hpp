#pragma once

// A fusion group (backends/fused_groups.hpp) as one blockwise program; the
// executor runs it as one node at the group's last member.

#include "backends/cpu/cpu_backend.hpp"

namespace specula::backends::cpu
{
    result<group_kernel> make_group_kernel(const ir::graph& g, const fused_group& fg,
                                           const kernel_context& ctx);
} // namespace specula::backends::cpu
