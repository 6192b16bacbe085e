#include "backends/cpu/cpu_backend.hpp"

#include "backends/cpu/group_kernels.hpp"
#include "backends/cpu/threading.hpp"

#include <string>

namespace specula::backends::cpu
{
    cpu_backend::cpu_backend(cpu_options options) : m_options(std::move(options))
    {
        if (m_options.threads <= 0 || m_options.threads == thread_budget())
        {
            // The process's shared pool: a non-owning handle.
            m_pool = std::shared_ptr<thread_pool>(&thread_pool::shared(), [](thread_pool*) {});
        }
        else
        {
            m_pool = std::make_shared<thread_pool>(m_options.threads);
        }
    }

    cpu_backend::~cpu_backend() = default;

    result<std::unique_ptr<kernel>>
    cpu_backend::compile_node_impl(const ir::graph& g, const ir::node& n, const target& t) const
    {
        if (t.where.kind != device_kind::cpu)
        {
            return status::unimplemented("the CPU backend runs on the host only");
        }
        kernel_context ctx{&m_options, m_pool, t.exact};
        using factory = result<std::unique_ptr<kernel>> (*)(const ir::graph&, const ir::node&,
                                                            const kernel_context&);
        // oneDNN first: it only accepts float32 in the fast target, at sizes
        // where its per-call cost pays off.
        for (factory make :
             {make_onednn_kernel, make_elementwise_kernel, make_matmul_kernel, make_sum_kernel,
              make_reduction_kernel, make_index_kernel, make_copy_kernel, make_creation_kernel,
              make_outer_kernel, make_view_kernel})
        {
            auto k = make(g, n, ctx);
            if (k || k.error().code() != status_code::unimplemented)
            {
                return k;
            }
        }
        return status::unimplemented(std::string(ir::mnemonic(n.code)));
    }

    result<group_kernel> cpu_backend::compile_group_impl(const ir::graph& g, const fused_group& fg,
                                                         const target& t) const
    {
        if (t.where.kind != device_kind::cpu)
        {
            return status::unimplemented("the CPU backend runs on the host only");
        }
        kernel_context ctx{&m_options, m_pool, t.exact};
        if (fg.group == rank1_chain_group)
        {
            return make_rank1_chain_group(g, fg, ctx);
        }
        if (fg.group < 0)
        {
            return make_onednn_group(g, fg, ctx); // a pattern of ours
        }
        if (!m_options.fuse)
        {
            return status::unimplemented("fusion off");
        }
        return make_group_kernel(g, fg, ctx);
    }

    std::vector<fused_group> cpu_backend::pattern_groups_impl(const ir::graph& g,
                                                              const target& t) const
    {
        if (t.where.kind != device_kind::cpu)
        {
            return {};
        }
        kernel_context ctx{&m_options, m_pool, t.exact};
        // oneDNN's first: a float32 pattern it takes keeps its members.
        std::vector<fused_group> groups = onednn_pattern_groups(g, ctx);
        for (fused_group& fg : rank1_chain_groups(g, ctx))
        {
            groups.push_back(std::move(fg));
        }
        return groups;
    }
} // namespace specula::backends::cpu
