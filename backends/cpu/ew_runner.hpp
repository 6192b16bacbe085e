#pragma once

// Evaluates an ew_program blockwise: the flattened (C-order) output is cut
// into blocks, and every instruction runs on one block before the next block
// starts, so temporaries stay in L1. Large outputs are split between the
// pool's lanes at block boundaries; elementwise results do not depend on the
// split or the block size, so one lane and two agree bit for bit.

#include "backends/buffer.hpp"
#include "backends/cpu/ew_program.hpp"
#include "backends/cpu/thread_pool.hpp"

#include <memory>
#include <vector>

namespace specula::backends::cpu
{
    // The largest block; a program's own block is smaller when its registers
    // would not fit in L1 together (block_for()).
    inline constexpr std::int64_t block_elements = 2048;

    class ew_runner
    {
    public:
        ew_runner(ew_program prog, std::shared_ptr<thread_pool> pool);

        const ew_program& program() const { return m_prog; }
        std::int64_t block() const { return m_block; }

        // inputs[i] binds m_prog.m_inputs[i]; outputs[k] (C-contiguous, all of
        // the output shape) binds m_prog.m_outputs[k]. Scratch is owned here:
        // run() does not allocate, and is not reentrant.
        status run(const buffer* const* inputs, buffer* const* outputs) const;

    private:
        struct operand
        {
            const std::byte* base = nullptr;
            std::intptr_t step = 0;        // when read in place
            bool gather = false;           // else: copied per block into scratch
            bool row_direct = false;       // gathered, but its rows are read in place
            std::int64_t strides[16] = {}; // byte strides against the output dims
        };

        static void set_strides(operand& op, const buffer& b,
                                const std::vector<std::int64_t>& shape);
        void run_range(int lane, std::int64_t begin, std::int64_t end, const operand* ops,
                       buffer* const* outputs) const;
        std::byte* lane_scratch(int lane) const;

        ew_program m_prog;
        std::shared_ptr<thread_pool> m_pool;
        std::int64_t m_block = block_elements;
        // Per lane: temporaries then gather slots, block_elements * 8 bytes each.
        mutable std::vector<std::unique_ptr<std::byte[]>> m_scratch;
        mutable std::vector<operand> m_operands;
        mutable const std::vector<std::int64_t>* p_shape = nullptr; // the output's, during run()
        // During run(): the output's innermost dim when blocks are cut at its
        // rows (some operand's rows are read in place), else 0.
        mutable std::int64_t m_row = 0;
    };
} // namespace specula::backends::cpu
