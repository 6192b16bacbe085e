#pragma once

// Kernel selection by op family and size for the oneDNN path: below the
// crossover measured on this machine (README, "Kernel selection") oneDNN's
// per-call cost, or NumPy's own SIMD loops run blockwise on our pool, beat it.

#include "backends/cpu/cpu_backend.hpp"

#include <cstdint>

namespace specula::backends::cpu::onednn
{
    enum class family
    {
        eltwise_cheap,         // one linear/abs/square or binary arithmetic op
        eltwise_chain,         // two or more cheap steps folded into one primitive
        eltwise_tanh,          // a chain with a tanh
        eltwise_sqrt_logistic, // a chain with a sqrt or a logistic 1/(1+exp(-x))
        reduction,             // sum, mean
        softmax,
        layer_norm,
        batch_norm,
    };

    // Output elements from which `f` runs on oneDNN (INT64_MAX: never).
    std::int64_t min_elements(family f);

    // Whether an op of `f` producing/reading `elements` elements takes oneDNN
    // (cpu_options::onednn_min_elements overrides the table when >= 0).
    bool worth_it(const kernel_context& ctx, family f, std::int64_t elements);
} // namespace specula::backends::cpu::onednn
