#include "backends/executable.hpp"

#include "backends/executor.hpp"
#include "backends/run_shapes.hpp"

namespace specula::backends
{
    run_result executable::run(const std::vector<buffer>& inputs) const
    {
        static const std::vector<buffer> none;
        return run(inputs, none);
    }

    run_result executable::run(const std::vector<buffer>& inputs,
                               const std::vector<buffer>& destinations) const
    {
        static const std::vector<buffer> none;
        return run(inputs, destinations, none);
    }

    run_result executable::run(const std::vector<buffer>& inputs,
                               const std::vector<buffer>& destinations,
                               const std::vector<buffer>& targets) const
    {
        if (p_main == nullptr)
        {
            return run_result{status::invalid("executable has no graph"), {}, std::nullopt, {}};
        }
        if (m_running.exchange(true))
        {
            return run_result{status::runtime("executable already running"), {}, std::nullopt, {}};
        }
        run_result r = execute(*this, *p_main, inputs, destinations, targets);
        m_running.store(false);
        return r;
    }

    namespace
    {
        // Binds the main graph's symbols from `inputs`; false if they do not fit
        // (the run itself will say why).
        bool bind_inputs(const compiled_graph& cg, const std::vector<buffer>& inputs,
                         symbol_table& symbols)
        {
            const ir::graph& g = *cg.p_graph;
            symbols.reset(g.num_symbols());
            if (inputs.size() != cg.m_inputs.size())
            {
                return false;
            }
            for (ir::node_id id : cg.m_inputs)
            {
                const ir::node& in = g.get_node(id);
                const auto k = static_cast<std::size_t>(in.attr_as<ir::boundary_attr>().index);
                if (k >= inputs.size() || !symbols.bind(g.type_of(in.outputs[0]), inputs[k]))
                {
                    return false;
                }
            }
            return true;
        }
    } // namespace

    void executable::output_layouts(const std::vector<buffer>& inputs,
                                    std::vector<output_layout>& out) const
    {
        out.clear();
        if (p_main == nullptr)
        {
            return;
        }
        const ir::graph& g = *p_main->p_graph;
        out.resize(p_main->m_outputs.size());
        symbol_table symbols;
        bool tried = false;
        bool bound = false;
        for (ir::node_id id : p_main->m_outputs)
        {
            const ir::node& n = g.get_node(id);
            const auto i = static_cast<std::size_t>(n.attr_as<ir::boundary_attr>().index);
            if (i >= out.size())
            {
                continue;
            }
            const ir::value_type& t = g.type_of(n.inputs[0]);
            output_layout& o = out[i];
            o.elem = t.elem;
            std::optional<std::vector<std::int64_t>> sizes = t.dims.static_sizes();
            if (!sizes)
            {
                if (!tried)
                {
                    bound = bind_inputs(*p_main, inputs, symbols);
                    tried = true;
                }
                if (bound)
                {
                    sizes = symbols.sizes_of(t);
                }
            }
            o.known = sizes.has_value();
            if (sizes)
            {
                o.shape = std::move(*sizes);
            }
        }
    }

    bool executable::may_hold_store(std::size_t output) const
    {
        if (p_main == nullptr)
        {
            return false;
        }
        const ir::graph& g = *p_main->p_graph;
        const std::vector<const compiled_node*>& candidates = store_candidates(*p_main);
        for (ir::node_id id : p_main->m_outputs)
        {
            const ir::node& n = g.get_node(id);
            if (static_cast<std::size_t>(n.attr_as<ir::boundary_attr>().index) == output)
            {
                return candidates[n.inputs[0]] != nullptr;
            }
        }
        return false;
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
