#include "backends/served_by.hpp"

#include "ir/printer.hpp"

#include <set>

namespace specula::backends
{
    namespace
    {
        std::string types_of(const ir::graph& g, const std::vector<ir::value_id>& values)
        {
            std::string s;
            for (ir::value_id v : values)
            {
                const ir::value_type& t = g.type_of(v);
                s += (s.empty() ? "" : ", ") + std::string(ir::dtype_name(t.elem)) +
                     t.dims.to_string();
            }
            return s;
        }

        std::string describe(const ir::graph& g, const compiled_node& cn)
        {
            const ir::node& n = *cn.p_node;
            std::string s(ir::mnemonic(n.code));
            const std::string attr = ir::print_attr(n.attr);
            if (!attr.empty())
            {
                s += " " + attr;
            }
            return s + " " + types_of(g, cn.m_inputs) + " -> " + types_of(g, cn.m_outputs);
        }

        void collect(const compiled_graph& cg, std::string_view primary,
                     std::set<const compiled_graph*>& seen, std::vector<served_node>& out)
        {
            if (!seen.insert(&cg).second)
            {
                return; // recursion: each graph once
            }
            for (const auto& region : cg.m_regions)
            {
                for (const compiled_node& cn : region)
                {
                    if (cn.p_callee != nullptr)
                    {
                        collect(*cn.p_callee, primary, seen, out);
                    }
                    if (cn.m_kernel == nullptr || cn.p_node == nullptr || cn.m_backend == primary)
                    {
                        continue; // the executor's own ops, or served by the primary
                    }
                    out.push_back({cg.p_graph->name(), cn.p_node->id, cn.m_backend,
                                   describe(*cg.p_graph, cn)});
                }
            }
        }
    } // namespace

    std::vector<served_node> nodes_not_served_by(const executable& exe, std::string_view primary)
    {
        std::vector<served_node> out;
        std::set<const compiled_graph*> seen;
        collect(exe.main(), primary, seen, out);
        return out;
    }

    std::string format(const std::vector<served_node>& nodes)
    {
        std::string s;
        for (const served_node& n : nodes)
        {
            s += "  " + n.graph + " node " + std::to_string(n.node) + " on " + n.backend + ": " +
                 n.what + "\n";
        }
        return s;
    }
} // namespace specula::backends
