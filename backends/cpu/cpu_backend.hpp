#pragma once

// The CPU backend: NumPy-exact kernels (NumPy's own loops through a
// loop_table, our proven loops, OpenBLAS as NumPy calls it, NumPy's pairwise
// sums), fused elementwise groups run blockwise on the thread pool, and
// oneDNN primitives for float32 in the `fast` target. Whatever it leaves
// unimplemented falls back (normally to the reference backend).

#include "backends/backend.hpp"
#include "backends/cpu/loop_table.hpp"
#include "backends/cpu/thread_pool.hpp"

#include <memory>

namespace specula::backends::cpu
{
    struct cpu_options
    {
        // NumPy's loops, filled by fill_numpy_loops(); null: our loops only,
        // transcendental functions fall back.
        std::shared_ptr<const loop_table> numpy_loops;
        // Lanes of Specula's own pool; 0: the process budget (shared pool).
        int threads = 0;
        // Evaluate fusion groups (node::group) blockwise as one kernel, run by
        // the executor as one node (see README, "Fusion groups").
        bool fuse = true;
        // oneDNN for float32 in the fast target.
        bool use_onednn = true;
        // Size from which every oneDNN op family is taken (benchmarks and
        // tests); -1: the crossovers measured per family (onednn_selection.hpp).
        std::int64_t onednn_min_elements = -1;
        // Movement ops as zero-copy strided views (see README, "Views").
        bool views = true;
    };

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

        result<group_kernel> compile_group_impl(const ir::graph& g, const fused_group& fg,
                                                const target& t) const override;
        std::vector<fused_group> pattern_groups_impl(const ir::graph& g,
                                                     const target& t) const override;

        cpu_options m_options;
        std::shared_ptr<thread_pool> m_pool;
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
    // np.dot as NumPy's cblas_matrixproduct runs it: dot_kernels.cpp (reached
    // through make_matmul_kernel).
    result<std::unique_ptr<kernel>> make_dot_kernel(const ir::graph& g, const ir::node& n);
    result<std::unique_ptr<kernel>> make_sum_kernel(const ir::graph& g, const ir::node& n,
                                                    const kernel_context& ctx);
    // Indexing (gather, masks and their updates): index_kernels.cpp.
    result<std::unique_ptr<kernel>> make_index_kernel(const ir::graph& g, const ir::node& n,
                                                      const kernel_context& ctx);
    // slice_update, concatenate, stack: copy_kernels.cpp.
    result<std::unique_ptr<kernel>> make_copy_kernel(const ir::graph& g, const ir::node& n,
                                                     const kernel_context& ctx);
    // constant, zeros/ones/full/fill, arange, eye, shape_dim: creation_kernels.cpp.
    result<std::unique_ptr<kernel>> make_creation_kernel(const ir::graph& g, const ir::node& n,
                                                         const kernel_context& ctx);
    // np.outer: outer_kernels.cpp.
    result<std::unique_ptr<kernel>> make_outer_kernel(const ir::graph& g, const ir::node& n,
                                                      const kernel_context& ctx);
    // Every reduction sum_kernels.cpp leaves: reduction_kernels.cpp, variance_kernels.cpp.
    result<std::unique_ptr<kernel>> make_reduction_kernel(const ir::graph& g, const ir::node& n,
                                                          const kernel_context& ctx);
    result<std::unique_ptr<kernel>> make_view_kernel(const ir::graph& g, const ir::node& n,
                                                     const kernel_context& ctx);
    result<std::unique_ptr<kernel>> make_onednn_kernel(const ir::graph& g, const ir::node& n,
                                                       const kernel_context& ctx);
    // oneDNN patterns (matmul -> bias -> activation) and their kernels.
    std::vector<fused_group> onednn_pattern_groups(const ir::graph& g, const kernel_context& ctx);
    result<group_kernel> make_onednn_group(const ir::graph& g, const fused_group& fg,
                                           const kernel_context& ctx);
    // Chains of rank-1 updates, `x + a_0 @ b_0 + a_1 @ b_1 + ...` with
    // column-times-row products (rank1_chain.cpp): one kernel per chain,
    // NumPy's bits. Their groups carry rank1_chain_group.
    inline constexpr int rank1_chain_group = -2;
    std::vector<fused_group> rank1_chain_groups(const ir::graph& g, const kernel_context& ctx);
    result<group_kernel> make_rank1_chain_group(const ir::graph& g, const fused_group& fg,
                                                const kernel_context& ctx);
    // oneDNN primitives built so far (0 without oneDNN): tests of the cache.
    std::int64_t onednn_primitives_created();
} // namespace specula::backends::cpu
