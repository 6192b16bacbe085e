#pragma once

// float32 matmul on oneDNN with the bias and activation fused as post-ops,
// for the `fast` target only (reassociated sums: see README, tolerance).

#include "backends/cpu/cpu_backend.hpp"

#include <dnnl.hpp>

namespace specula::backends::cpu::onednn
{
    enum class activation
    {
        none,
        relu,
        tanh,
    };

    struct matmul_spec
    {
        std::int64_t m = 0, k = 0, n = 0;
        dnnl::memory::data_type elem = dnnl::memory::data_type::f32;
        bool bias = false; // a row of n added to every row of the product
        activation act = activation::none;
    };

    // Below this many multiply-adds oneDNN's per-call cost outweighs its speed:
    // the product stays on the exact path (OpenBLAS as NumPy calls it).
    inline constexpr std::int64_t min_matmul_work = std::int64_t(64) * 64 * 64;
    // From this many multiply-adds the rows are split over the pool's lanes
    // (each lane's share then takes some 5 us or more on one core).
    inline constexpr std::int64_t min_split_work = std::int64_t(1) << 20;

    // The cached (single-threaded) primitive for all of `spec`, built on
    // first use; "unimplemented" when oneDNN has no implementation (never
    // throws).
    result<std::shared_ptr<dnnl::primitive>> matmul_primitive(const matmul_spec& spec);

    // matmul -> add bias -> relu/tanh chains (float32, 2-D, static shapes).
    std::vector<fused_group> matmul_patterns(const ir::graph& g);
    // Both run on ctx.pool's lanes, one single-threaded primitive per lane.
    result<group_kernel> make_matmul_group(const ir::graph& g, const fused_group& fg,
                                           const kernel_context& ctx);
    // A lone float32 matmul.
    result<std::unique_ptr<kernel>> make_matmul_node(const ir::graph& g, const ir::node& n,
                                                     const kernel_context& ctx);
} // namespace specula::backends::cpu::onednn
