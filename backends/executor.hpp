#pragma once

// The executor common to all backends: walks a compiled graph's regions in
// program order, runs each node's kernel, and itself handles boundary ops,
// IF / LOOP / CALL (recursion included) and ASSERT. A failing assert stops
// the run with its exit id and reason; nothing is published.

#include "backends/executable.hpp"

namespace specula::backends
{
    // Deepest CALL nesting before a run gives up (a runaway recursion must
    // become a fallback, not a stack overflow).
    inline constexpr int max_call_depth = 200;

    // Marks the row updates of LOOP-carried tables that may run in place
    // (loop_carried.cpp); after the memory plan.
    // Also marks the GATHER / GATHER_UPDATE nodes of one row (m_row_move).
    void mark_carried_updates(compiled_graph& g);

    // Fills each kernel node's run-time constants (the C-order layouts and
    // byte sizes of static outputs, whether the kernel allocates its outputs)
    // so a run reads them instead of recomputing them per op. Last step of
    // compiling a graph.
    void resolve_run_layouts(compiled_graph& g);

    // The row move of `cn` (m_row_move) when the buffers allow it (same
    // dtype, C-contiguous), with the kernel's result and errors; false when
    // they do not, and the kernel runs instead.
    bool move_row(const compiled_node& cn, const kernel_io& io, status& st);

    // `destinations`, `targets`: see executable::run (each empty, or one per
    // output).
    run_result execute(const executable& exe, const compiled_graph& g,
                       const std::vector<buffer>& inputs, const std::vector<buffer>& destinations,
                       const std::vector<buffer>& targets);
} // namespace specula::backends
