#pragma once

// Shared by the oneDNN op tests: build a float32 graph, compile it on the CPU
// backend (fast or exact target, oneDNN on or off) or on the reference
// backend, run it, and measure errors against a float64 evaluation.

#include "cpu_test_support.hpp"

#include "backends/reference/reference_backend.hpp"
#include "ir/builder.hpp"

#include <functional>
#include <vector>

namespace specula::backends::cpu::testing
{
    using graph_body = std::function<void(ir::builder&, const std::vector<ir::value_id>&)>;

    struct f32_case
    {
        std::vector<std::vector<std::int64_t>> inputs; // shapes
        graph_body body;
    };

    struct run_options
    {
        bool exact = false;
        bool use_onednn = true;
        std::int64_t onednn_min_elements = -1; // the measured selection
        int threads = 0;
        bool reference = false; // the reference backend instead
    };

    struct outcome
    {
        std::vector<buffer> outputs;
        std::size_t scheduled = 0;       // nodes in the main schedule
        std::int64_t onednn_kernels = 0; // oneDNN kernels the compile made
        std::int64_t primitives = 0;     // oneDNN primitives the compile built
    };

    outcome run_case(const f32_case& c, const std::vector<buffer>& in, const run_options& o);

    buffer random_buffer(const std::vector<std::int64_t>& shape, unsigned seed, float lo, float hi);

    const float* f32(const buffer& b);

    // max over elements of |got - truth| / ulp(float(truth)).
    double max_ulps(const buffer& got, const std::vector<double>& truth);

    bool same_bytes(const buffer& x, const buffer& y);
} // namespace specula::backends::cpu::testing
