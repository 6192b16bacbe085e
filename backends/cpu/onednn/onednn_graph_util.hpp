#pragma once

// Small questions the oneDNN pattern matchers ask of the graph.

#include "backends/fused_groups.hpp"
#include "ir/graph.hpp"

#include <functional>

#include <cstdint>
#include <optional>
#include <vector>

namespace specula::backends::cpu::onednn
{
    bool is_f32(const ir::graph& g, ir::value_id v);

    // v has static shape `shape` exactly.
    bool has_shape(const ir::graph& g, ir::value_id v, const std::vector<std::int64_t>& shape);

    // v's static shape broadcasts to `shape` without growing it.
    bool broadcasts_to(const ir::graph& g, ir::value_id v, const std::vector<std::int64_t>& shape);

    // The value of a one-element float CONSTANT, or nothing.
    std::optional<double> scalar_constant(const ir::graph& g, ir::value_id v);

    // The nodes of `v`'s region reading `v`, each once, in program order.
    std::vector<const ir::node*> users(const ir::graph& g, ir::value_id v);

    // A reduction over the last axis only (keepdims), of a float32 input of
    // static rank 1..6.
    bool reduces_last_axis_keepdims(const ir::graph& g, const ir::node& n, ir::op code);

    // The one node of `v`'s region reading `v`, or null (none or several).
    const ir::node* only_user(const ir::graph& g, ir::value_id v);

    // The groups a whole-pattern matcher finds: `members_at` is asked at every
    // node of every region for the pattern's nodes starting there; a match is
    // kept when it closes as a fusion group with one output.
    using pattern_members =
        std::function<std::optional<std::vector<const ir::node*>>(const ir::node&)>;
    std::vector<fused_group> single_output_groups(const ir::graph& g,
                                                  const pattern_members& members_at);
} // namespace specula::backends::cpu::onednn
