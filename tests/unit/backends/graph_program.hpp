#pragma once

// Programs of gen_graph_oracle.py: inputs, then steps naming an IR op by its
// mnemonic, with NumPy's value of every step. Test-only code.

#include "backends/buffer.hpp"
#include "ir/builder.hpp"
#include "oracle_reader.hpp"

#include <string>
#include <vector>

namespace specula::backends::testing
{
    struct program_step
    {
        std::string mnemonic;
        std::string tolerance;
        std::vector<int> refs;
        std::vector<std::int64_t> params;
        oracle_array expected;
        std::optional<oracle_array> bound;
    };

    struct graph_program
    {
        std::string name;
        std::vector<oracle_array> inputs;
        std::vector<program_step> steps;
    };

    std::vector<graph_program> read_programs(const std::string& path, std::string& error);

    // The graph of `p` with every step as an output, in step order. Returns a
    // message when the IR refuses a step NumPy accepted, or infers another dtype.
    std::string build_program(const graph_program& p, ir::graph& g);

    buffer to_buffer(oracle_array& a);
    oracle_array from_buffer(const buffer& b);
} // namespace specula::backends::testing
