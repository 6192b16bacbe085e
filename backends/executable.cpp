#include "backends/executable.hpp"

#include "backends/executor.hpp"

namespace specula::backends
{
    run_result executable::run(const std::vector<buffer>& inputs) const
    {
        if (p_main == nullptr)
        {
            return run_result{status::invalid("executable has no graph"), {}, std::nullopt};
        }
        if (m_running.exchange(true))
        {
            return run_result{status::runtime("executable already running"), {}, std::nullopt};
        }
        run_result r = execute(*this, *p_main, inputs);
        m_running.store(false);
        return r;
    }

    const compiled_graph* executable::find(const std::string& name) const
    {
        auto it = m_graphs.find(name);
        return it == m_graphs.end() ? nullptr : it->second.get();
    }

    compiled_graph& executable::add_graph(const std::string& name)
    {
        auto& slot = m_graphs[name];
        slot = std::make_unique<compiled_graph>();
        return *slot;
    }
} // namespace specula::backends
