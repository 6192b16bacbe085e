#pragma once

// The memory of one graph activation: the value table and the blocks behind
// the IR's memory plan. An arena outlives runs, so after the first run of a
// statically shaped graph acquiring a value's buffer allocates nothing.
//
// Safety does not rest on the plan alone. Handles share ownership of a block,
// and a block is only written when no handle outside the arena still holds
// it: a caller's output from an earlier run, a loop-carried value of the
// previous iteration, a conditional's result. Otherwise the slot takes a spare
// block (or a new one) and the holder keeps the old bytes untouched.

#include "backends/buffer.hpp"
#include "backends/run_shapes.hpp"
#include "backends/status.hpp"
#include "ir/passes/plan_memory.hpp"

#include <utility>
#include <vector>

namespace specula::backends
{
    class arena
    {
    public:
        // Sizes the tables for a graph; `plan` null means a fresh allocation per
        // value (the executor's behaviour without planning).
        void prepare(const ir::graph& g, const ir::memory_plan* plan);

        // The buffer value `v` is written into, of `elem` and C-order `shape`.
        // `in_place_of` is the input value the plan lets v overwrite, or no_id.
        result<buffer> acquire(ir::value_id v, ir::dtype elem,
                               const std::vector<std::int64_t>& shape,
                               ir::value_id in_place_of = ir::no_id);

        // The same, written into `out` (the executor's per-op path: no
        // temporaries, no reference counting in the steady state).
        status acquire_into(buffer& out, ir::value_id v, ir::dtype elem,
                            const std::vector<std::int64_t>& shape,
                            ir::value_id in_place_of = ir::no_id);

        // The same for a statically shaped value: `layout` (C order, made by
        // buffer::c_layout) and its size in `bytes` are the compiled node's.
        status acquire_static(buffer& out, ir::value_id v, ir::dtype elem, std::int64_t bytes,
                              const layout_ref& layout, ir::value_id in_place_of);

        // A C-contiguous copy of `src` (value `v`) for a kernel that cannot
        // read its layout, written to staged[i] (a view of staging block i,
        // kept across runs). ensure_staging(n) first, once per node, so the
        // blocks do not move while a node's copies are in use.
        void ensure_staging(std::size_t n);
        status stage(std::size_t i, ir::value_id v, const buffer& src);

        // A LOOP's carried table the loop updates in place (loop_carried.cpp):
        // `src` copied into a block this arena keeps for the body argument
        // `v` across runs, and `out` a view of it. A new block only when the
        // last one is too small or still held (a caller kept the output).
        status own_copy(ir::value_id v, const buffer& src, buffer& out);

        // Ends an activation: drops every handle of the value table and the
        // outputs (the caller took its own) so the blocks are free again.
        void end_activation();

        std::vector<buffer> values; // indexed by value id
        std::vector<buffer> outputs;
        symbol_table symbols;
        std::vector<const buffer*> scratch_inputs; // reused per node
        std::vector<buffer*> scratch_outputs;      // reused per node
        std::vector<buffer> staged;                // per input index, see stage()
        // Caller memory the outputs go to (executable::run with destinations;
        // the top activation only): per value id, the destination index its
        // defining kernel writes into, or -1. Cleared by end_activation().
        const std::vector<buffer>* destinations = nullptr;
        std::vector<int> sink_of;
        std::vector<ir::value_id> sunk; // the values with a sink_of entry

    private:
        struct slot
        {
            buffer block;                    // uint8 bytes, capacity = size()
            ir::value_id holder = ir::no_id; // the value last written into it
        };

        // Points out's slot (plan buffer b) at a block of at least `bytes`
        // nobody else holds, for value v.
        status claim_slot(int b, ir::value_id v, std::int64_t bytes, ir::value_id in_place_of);

        // A value's layout is made once and reused run after run.
        const layout_ref& layout_of(ir::value_id v, ir::dtype elem,
                                    const std::vector<std::int64_t>& shape);
        result<buffer> fresh_block(std::int64_t bytes, std::int64_t planned);
        void retire(buffer block);
        buffer take_spare(std::int64_t bytes);

        const ir::memory_plan* p_plan = nullptr;
        std::vector<slot> m_slots;         // one per plan buffer
        std::vector<buffer> m_staging;     // uint8 blocks behind `staged`
        std::vector<buffer> m_spares;      // blocks waiting for their holders to let go
        std::vector<layout_ref> m_layouts; // by value id; kept across runs
        // own_copy()'s blocks by body argument; a handful per graph.
        std::vector<std::pair<ir::value_id, buffer>> m_carried;
    };
} // namespace specula::backends
