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
        if (m_options.fuse && n.group >= 0 && ir::has(n.code, ir::prop::ELEMENTWISE))
        {
            auto k = compile_grouped(g, n, t);
            if (k || k.error().code() != status_code::unimplemented)
            {
                return k;
            }
        }
        using factory = result<std::unique_ptr<kernel>> (*)(const ir::graph&, const ir::node&,
                                                            const kernel_context&);
        // oneDNN first: it only accepts float32 in the fast target, at sizes
        // where its per-call cost pays off.
        for (factory make :
             {make_onednn_kernel, make_elementwise_kernel, make_matmul_kernel, make_sum_kernel})
        {
            auto k = make(g, n, ctx);
            if (k || k.error().code() != status_code::unimplemented)
            {
                return k;
            }
        }
        return status::unimplemented(std::string(ir::mnemonic(n.code)));
    }

    result<std::unique_ptr<kernel>>
    cpu_backend::compile_grouped(const ir::graph& g, const ir::node& n, const target& t) const
    {
        kernel_context ctx{&m_options, m_pool, t.exact};
        const auto key = std::make_tuple(&g, n.parent, n.group);
        std::shared_ptr<group_state> state;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            auto it = m_groups.find(key);
            if (it != m_groups.end() && it->second && is_member(*it->second, n) &&
                !is_first_member(*it->second, n))
            {
                state = it->second;
            }
        }
        if (!state)
        {
            // The first member plans the group for everyone (a stale entry of
            // an earlier compile is replaced here).
            state = plan_group(g, n, ctx);
            std::lock_guard<std::mutex> lock(m_mutex);
            if (!state)
            {
                m_groups.erase(key);
                return status::unimplemented("group runs node by node");
            }
            m_groups[key] = state;
        }
        if (is_last_member(*state, n))
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_groups.erase(key);
        }
        return make_member_kernel(state, n, g.type_of(n.outputs[0]).elem);
    }
} // namespace specula::backends::cpu
