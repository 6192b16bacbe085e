#pragma once

// Shared by the view tests: NumPy evaluated in this process (the oracle),
// random inputs, and a graph compiled on the CPU backend (views on or off)
// or on the reference backend.

#include "backends/buffer.hpp"
#include "backends/cpu/cpu_backend.hpp"
#include "ir/builder.hpp"

#include <functional>
#include <string>
#include <vector>

namespace specula::views_test
{
    // The NumPy loop table filled by main().
    std::shared_ptr<const backends::cpu::loop_table>& numpy_table();

    backends::buffer random_buffer(ir::dtype t, std::vector<std::int64_t> shape, unsigned seed);

    // `expr` evaluated by NumPy with inputs bound to a, b, c, ... (copies of
    // `inputs`); the result C-contiguous.
    backends::buffer numpy_eval(const std::string& expr, const std::vector<backends::buffer>& ins);

    // The result's bytes in C order.
    std::vector<unsigned char> bytes_of(const backends::buffer& b);

    struct run_options
    {
        bool reference = false; // the reference backend instead of the CPU one
        bool views = true;
        bool fuse = true;
        bool plan = true;
        int threads = 0;
        bool exact = true;
    };

    using graph_fn = std::function<void(ir::builder&, const std::vector<ir::value_id>&)>;

    // Builds main(inputs of `ins`' types) with `body`, optionally fused, and
    // runs it `runs` times; the last run's outputs.
    std::vector<backends::buffer> run_graph(const graph_fn& body,
                                            const std::vector<backends::buffer>& ins,
                                            const run_options& opt, int runs = 1,
                                            std::vector<std::string>* node_backends = nullptr);
} // namespace specula::views_test
