#pragma once

// The CPU backend: NumPy-exact kernels (NumPy's own loops through a
// loop_table, our proven loops, OpenBLAS as NumPy calls it, NumPy's pairwise
// sums), fused elementwise groups run blockwise on the thread pool, and
// oneDNN primitives for float32 in the `fast` target. Whatever it leaves
// unimplemented falls back (normally to the reference backend).

#include "backends/backend.hpp"
#include "backends/cpu/loop_table.hpp"
#include "backends/cpu/thread_pool.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

namespace specula::backends::cpu
{
    struct cpu_options
    {
        // NumPy's loops, filled by fill_numpy_loops(); null: our loops only,
        // transcendental functions fall back.
        std::shared_ptr<const loop_table> numpy_loops;
        // Lanes of Specula's own pool; 0: the process budget (shared pool).
        int threads = 0;
        // Evaluate fusion groups (node::group) blockwise as one kernel. Needs
        // target.plan_memory off until the executor schedules a group as one
        // node (see README, "Fusion groups"); off by default for that reason.
        bool fuse = false;
        // oneDNN for float32 in the fast target.
        bool use_onednn = true;
    };

    struct group_state;

    class cpu_backend final : public backend
    {
    public:
        explicit cpu_backend(cpu_options options = {});
        ~cpu_backend() override;

        const cpu_options& options() const { return m_options; }

    private:
        std::string_view name_impl() const override { return "cpu"; }
        result<std::unique_ptr<kernel>> compile_node_impl(const ir::graph& g, const ir::node& n,
                                                          const target& t) const override;

        result<std::unique_ptr<kernel>> compile_grouped(const ir::graph& g, const ir::node& n,
                                                        const target& t) const;

        cpu_options m_options;
        std::shared_ptr<thread_pool> m_pool;
        // Fusion groups being compiled: the group's first node builds the
        // shared state, its last node takes it out.
        mutable std::mutex m_mutex;
        mutable std::map<std::tuple<const ir::graph*, ir::region_id, int>,
                         std::shared_ptr<group_state>>
            m_groups;
    };

    // Kernel factories by family (unimplemented outside the family).
    struct kernel_context
    {
        const cpu_options* p_options = nullptr;
        std::shared_ptr<thread_pool> pool;
        bool exact = true;
    };
    result<std::unique_ptr<kernel>> make_elementwise_kernel(const ir::graph& g, const ir::node& n,
                                                            const kernel_context& ctx);
    result<std::unique_ptr<kernel>> make_matmul_kernel(const ir::graph& g, const ir::node& n,
                                                       const kernel_context& ctx);
    result<std::unique_ptr<kernel>> make_sum_kernel(const ir::graph& g, const ir::node& n,
                                                    const kernel_context& ctx);
    result<std::unique_ptr<kernel>> make_onednn_kernel(const ir::graph& g, const ir::node& n,
                                                       const kernel_context& ctx);
} // namespace specula::backends::cpu
