#pragma once

// The result of backend::compile: the graph, its callees and one kernel per
// computing node. run() walks it with the common executor.

#include "backends/buffer.hpp"
#include "backends/kernel.hpp"
#include "backends/status.hpp"
#include "ir/graph.hpp"

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
    };

    struct run_result
    {
        status state;
        std::vector<buffer> outputs;     // empty unless state.is_ok()
        std::optional<assert_exit> exit; // set when an assert fired
    };

    struct compiled_node
    {
        const ir::node* p_node = nullptr;
        std::unique_ptr<kernel> m_kernel; // null for ops the executor runs itself
        // Per output: C-order sizes when the IR type is static; empty with
        // m_static_outputs false when a symbolic dim must be resolved at run.
        std::vector<std::vector<std::int64_t>> m_output_shapes;
        bool m_static_outputs = true;
        std::string m_backend; // which backend compiled it (reports, tests)
    };

    struct compiled_graph
    {
        const ir::graph* p_graph = nullptr;
        std::vector<std::vector<compiled_node>> m_regions; // indexed by region id
        std::vector<ir::node_id> m_inputs;
        std::vector<ir::node_id> m_outputs;
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
        // unimplemented) none are published.
        run_result run(const std::vector<buffer>& inputs) const;

        const compiled_graph& main() const { return *p_main; }
        const compiled_graph* find(const std::string& name) const;

        // Used by backend::compile.
        compiled_graph& add_graph(const std::string& name);
        void set_main(const compiled_graph* g) { p_main = g; }

    private:
        std::map<std::string, std::unique_ptr<compiled_graph>> m_graphs;
        const compiled_graph* p_main = nullptr;
    };
} // namespace specula::backends
