#pragma once

// float32 elementwise chains on oneDNN (fast target only): a first eltwise or
// binary primitive with the following nodes folded in as eltwise/binary
// post-ops, e.g. tanh(a * b + c) as one binary(mul) with post-ops
// binary(add, c) and eltwise(tanh). Recognised on the graph's fusion groups
// (and on lone nodes), taken only where kernel selection says oneDNN wins.

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/onednn/onednn_plan.hpp"

#include <optional>

namespace specula::backends::cpu::onednn
{
    // One step of a chain: an eltwise algorithm on the running value, or a
    // binary algorithm with an external operand (input `operand` of the kernel).
    struct chain_step
    {
        bool binary = false;
        dnnl::algorithm alg = dnnl::algorithm::undef;
        float alpha = 0.f, beta = 0.f; // eltwise parameters
        int operand = -1;              // binary: index in chain::inputs
    };

    struct chain
    {
        std::vector<ir::value_id> inputs; // the kernel's inputs; inputs[0] the source
        std::vector<chain_step> steps;    // steps[0] is the primitive, the rest post-ops
        ir::value_id output = ir::no_id;
        std::vector<std::int64_t> out_shape;
    };

    // `members` (program order, a linear chain: each reads the previous
    // member's value) as a chain of oneDNN steps, or nothing.
    std::optional<chain> chain_of(const ir::graph& g, const std::vector<const ir::node*>& members);

    // The call plan of `c` (flattened to 1-D when no operand broadcasts).
    std::optional<call_plan> chain_plan(const ir::graph& g, const chain& c);

    // Fusion groups (and lone elementwise nodes' chains) worth running on oneDNN.
    std::vector<fused_group> chain_patterns(const ir::graph& g);
    result<group_kernel> make_chain_group(const ir::graph& g, const fused_group& fg,
                                          const kernel_context& ctx);
    result<std::unique_ptr<kernel>> make_chain_node(const ir::graph& g, const ir::node& n,
                                                    const kernel_context& ctx);
} // namespace specula::backends::cpu::onednn
