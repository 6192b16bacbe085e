#pragma once

// Fusion groups (node::group, set by ir/passes/fuse_elementwise) that the
// executor runs as ONE node, at the position of the group's last member: the
// backend compiles the group into one kernel, and the memory plan is told
// (ir::plan_memory's `groups`) so that the group's inputs stay live until it
// runs and values that never leave it get no memory written.

#include "ir/graph.hpp"

#include <vector>

namespace specula::backends
{
    struct fused_group
    {
        ir::region_id region = ir::no_id;
        int group = -1;
        std::vector<const ir::node*> members; // program order
        // Member values read after the group (graph or region results
        // included), the last member's first; the rest are temporaries.
        std::vector<ir::value_id> outputs;
    };

    // Operands made inside a group's span (by non-members between its first
    // and last member) that the group may keep waiting for it, in bytes: about
    // half of a core's L2 here.
    inline constexpr std::int64_t held_operand_budget = 256 * 1024;

    // Groups of two or more members that can legally run at their last
    // member: one output each, all of one static shape, and no member value
    // read by a non-member placed between the first and the last member.
    // Groups that would hold more than held_operand_budget of cache-sized
    // operands made inside their span run node by node instead.
    std::vector<fused_group> find_fused_groups(const ir::graph& g);

    // For a group a backend proposes itself (members of one region in program
    // order, e.g. matmul -> add bias -> relu): fills `outputs` and says whether
    // it may run at its last member (same rule as above; shapes are free).
    bool finish_group(const ir::graph& g, fused_group& fg);
} // namespace specula::backends
