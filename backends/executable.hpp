#pragma once

// The result of backend::compile: the graph, its callees and one kernel per
// computing node. run() walks it with the common executor.

#include "backends/arena.hpp"
#include "backends/buffer.hpp"
#include "backends/deferred_store.hpp"
#include "backends/kernel.hpp"
#include "backends/status.hpp"
#include "ir/graph.hpp"
#include "ir/passes/plan_memory.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace specula::backends
{
    // Why a run stopped at an in-graph assumption: the engine's exit to take.
    struct assert_exit
    {
        std::uint32_t exit_id = 0;
        std::string reason;
        std::string graph;            // the graph holding the assert (main or a callee)
        ir::node_id node = ir::no_id; // the ASSERT node that fired
    };

    // Outputs are the caller's: each stays valid and unchanged for as long as
    // the caller holds it, whatever later runs do (the executable never writes
    // memory somebody else holds). An output is never read-only: constants are
    // copied out. The one alias: an output that is a graph input (or a loop
    // that never ran over one) is that input's buffer, as in Python.
    struct run_result
    {
        status state;
        std::vector<buffer> outputs;     // empty unless state.is_ok()
        std::optional<assert_exit> exit; // set when an assert fired
        // Stores held back for the caller (run with targets): outputs[i] is
        // then targets[i], written only by stores.run().
        deferred_stores stores;
    };

    struct compiled_node
    {
        const ir::node* p_node = nullptr;
        std::unique_ptr<kernel> m_kernel; // null for ops the executor runs itself
        // Per output: C-order sizes when the IR type is static; empty with
        // m_static_outputs false when a symbolic dim must be resolved at run.
        std::vector<std::vector<std::int64_t>> m_output_shapes;
        bool m_static_outputs = true;
        // Static outputs: their C-order layouts and byte sizes, made once
        // (resolve_run_layouts) so a run neither multiplies sizes nor
        // compares shapes per op; empty otherwise.
        std::vector<layout_ref> m_output_layouts;
        std::vector<std::int64_t> m_output_bytes;
        bool m_allocates_outputs = false; // m_kernel->allocates_outputs(), asked once
        std::string m_backend;            // which backend compiled it (reports, tests)
        // LOOP: symbols of the carried arguments not bound by the graph's
        // inputs; they are rebound at every iteration (see ir/README.md).
        std::vector<std::int32_t> m_loop_symbols;
        // Resolved at compile time so a run does no lookups: the input value
        // the plan lets this node overwrite (or no_id), and CALL's callee.
        ir::value_id m_in_place = ir::no_id;
        // GATHER_UPDATE of a table a LOOP carries: writes its row into the
        // carried argument itself (loop_carried.cpp); LOOP: the carried
        // values it copies at entry into memory of its own for that.
        ir::value_id m_carried_arg = ir::no_id;
        std::vector<std::size_t> m_owned_carried;
        // GATHER / GATHER_UPDATE of one row at a 0-d int64 index: the
        // executor moves the row itself (loop_carried.cpp, move_row()).
        bool m_row_move = false;
        // A kernel's operand and result values: the node's own, or for a fused
        // group (run as this one node) its external inputs and escaping values.
        std::vector<ir::value_id> m_inputs;
        std::vector<ir::value_id> m_outputs;
        const struct compiled_graph* p_callee = nullptr;
    };

    // Activations of one graph. Recursion needs one arena per live activation;
    // they are kept across runs so their blocks are reused.
    struct arena_pool
    {
        std::vector<std::unique_ptr<arena>> m_arenas;
        std::size_t m_active = 0;
    };

    struct compiled_graph
    {
        const ir::graph* p_graph = nullptr;
        std::vector<std::vector<compiled_node>> m_regions; // indexed by region id
        std::vector<ir::node_id> m_inputs;
        std::vector<ir::node_id> m_outputs;
        std::optional<ir::memory_plan> m_plan; // absent: allocate per value
        std::unique_ptr<arena_pool> m_pool = std::make_unique<arena_pool>();
        // store_candidates(), computed at the first run with targets (one run
        // at a time, so no race).
        mutable std::unique_ptr<std::vector<const compiled_node*>> m_store_candidates;
    };

    // A graph and every graph it calls, compiled. The ir::graph (and its
    // module) must outlive the executable: kernels point into it.
    class executable
    {
    public:
        executable() = default;
        executable(const executable&) = delete;
        executable& operator=(const executable&) = delete;

        // Inputs bind the graph's INPUT/PARAM nodes by index. On success the
        // outputs are in OUTPUT index order; on any failure (assert, error,
        // unimplemented) none are published. The executable keeps its memory
        // between runs, so one run at a time: a run started while another is
        // under way (another thread) answers runtime_error.
        run_result run(const std::vector<buffer>& inputs) const;

        // The same, writing output i into destinations[i] when that is not
        // null: caller memory (a NumPy array) of exactly output i's dtype and
        // C-order shape, C-contiguous, overlapping no input. The kernel that
        // defines the output writes straight into it when it can; otherwise
        // (an input passed through, a view, a duplicate, a kernel that makes
        // its own buffer) the value is copied in at the end of a successful
        // run. outputs[i] is then destinations[i]. On failure the
        // destinations hold unspecified bytes: the caller drops them.
        run_result run(const std::vector<buffer>& inputs,
                       const std::vector<buffer>& destinations) const;

        // The same, with effect targets (empty, or one per output): targets[i]
        // null, or caller memory output i is stored into (a user's array
        // written in place, any strides). When the kernel defining output i
        // may write it directly (deferred_store.hpp: an elementwise kernel
        // whose result nothing but that output reads, the target's exact
        // dtype, shape and C order, read in place only in its own layout),
        // the kernel is held back in result.stores and the target is left
        // untouched until the caller runs them; otherwise targets[i] is
        // ignored and output i is delivered as without targets.
        run_result run(const std::vector<buffer>& inputs, const std::vector<buffer>& destinations,
                       const std::vector<buffer>& targets) const;

        // Per output of the main graph: its dtype and, when known before a run
        // with these inputs (static, or symbolic dims all bound by the
        // inputs), its C-order sizes.
        struct output_layout
        {
            ir::dtype elem = ir::dtype::float64;
            bool known = false;
            std::vector<std::int64_t> shape;
        };
        void output_layouts(const std::vector<buffer>& inputs,
                            std::vector<output_layout>& out) const;

        // Whether output i is defined by a kernel run() may hold back as a
        // store into a target (store_candidates): the caller then asks for it.
        // The run may still refuse (the target's layout, overlaps).
        bool may_hold_store(std::size_t output) const;

        const compiled_graph& main() const { return *p_main; }
        const compiled_graph* find(const std::string& name) const;

        // Used by backend::compile.
        compiled_graph& add_graph(const std::string& name);
        void set_main(const compiled_graph* g) { p_main = g; }

    private:
        std::map<std::string, std::unique_ptr<compiled_graph>> m_graphs;
        const compiled_graph* p_main = nullptr;
        mutable std::atomic<bool> m_running{false};
    };
} // namespace specula::backends
