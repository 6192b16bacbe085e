#include "ir/passes/dce.hpp"

#include <set>
#include <vector>

namespace specula::ir
{
    namespace
    {
        // What a dead node may still make observable (dce_options::keep_signalling).
        bool signals(const graph& g, const node& n)
        {
            if (n.code == op::CONSTANT || has(n.code, prop::MOVEMENT) ||
                has(n.code, prop::BOUNDARY) || has(n.code, prop::CONTROL_FLOW))
            {
                return false;
            }
            switch (n.code)
            {
            case op::DIV:
            case op::FLOORDIV:
            case op::MOD:
            case op::POW:
            case op::GATHER:
            case op::GATHER_UPDATE:
            case op::MASK_SELECT:
            case op::MASK_UPDATE:
                return true;
            default:
                break;
            }
            auto is_float_value = [&](value_id v) { return is_float(g.type_of(v).elem); };
            for (value_id v : n.inputs)
            {
                if (is_float_value(v))
                {
                    return true;
                }
            }
            for (value_id v : n.outputs)
            {
                if (is_float_value(v))
                {
                    return true;
                }
            }
            return false;
        }

        struct effect_scan
        {
            bool keep_signalling = false;
            std::set<std::string> seen_callees;
        };

        bool region_has_effects(const graph& g, region_id r, effect_scan& scan);

        bool node_has_effects(const graph& g, const node& n, effect_scan& scan)
        {
            if (has(n.code, prop::SIDE_EFFECT) || (scan.keep_signalling && signals(g, n)))
            {
                return true;
            }
            for (region_id r : n.regions)
            {
                if (region_has_effects(g, r, scan))
                {
                    return true;
                }
            }
            if (n.code != op::CALL)
            {
                return false;
            }
            const std::string& callee = n.attr_as<call_attr>().callee;
            const module* m = g.parent_module();
            const graph* c = m ? m->find(callee) : nullptr;
            if (c == nullptr)
            {
                return true; // unknown callee: keep
            }
            if (!scan.seen_callees.insert(callee).second)
            {
                return false; // already being examined (recursion)
            }
            for (node_id id : c->walk())
            {
                const node& cn = c->get_node(id);
                // A callee's OUTPUT is its return, not an effect of the call.
                if (cn.code != op::OUTPUT && node_has_effects(*c, cn, scan))
                {
                    return true;
                }
            }
            return false;
        }

        bool region_has_effects(const graph& g, region_id r, effect_scan& scan)
        {
            for (node_id n : g.get_region(r).nodes)
            {
                if (node_has_effects(g, g.get_node(n), scan))
                {
                    return true;
                }
            }
            return false;
        }

        class dce
        {
        public:
            dce(graph& g, const dce_options& options)
                : m_graph(g), m_options(options), m_live_values(g.num_values(), false)
            {
            }

            int run()
            {
                // Liveness flows backwards, so walk regions in reverse until stable:
                // a use inside a region can make an outer value live.
                bool changed = true;
                while (changed)
                {
                    changed = mark_region(m_graph.body());
                }
                return sweep(m_graph.body());
            }

        private:
            bool is_live(const node& n)
            {
                // Unused INPUT/PARAM stay: the engine binds inputs by index.
                if (m_live_nodes.count(n.id) || has(n.code, prop::BOUNDARY))
                {
                    return true;
                }
                for (value_id v : n.outputs)
                {
                    if (m_live_values[v])
                    {
                        return true;
                    }
                }
                effect_scan scan{m_options.keep_signalling, {}};
                return node_has_effects(m_graph, n, scan);
            }

            bool mark_value(value_id v)
            {
                if (m_live_values[v])
                {
                    return false;
                }
                m_live_values[v] = true;
                return true;
            }

            bool mark_region(region_id r)
            {
                bool changed = false;
                const region& reg = m_graph.get_region(r);
                for (auto it = reg.nodes.rbegin(); it != reg.nodes.rend(); ++it)
                {
                    const node& n = m_graph.get_node(*it);
                    if (!is_live(n))
                    {
                        continue;
                    }
                    changed = m_live_nodes.insert(n.id).second || changed;
                    for (value_id v : n.inputs)
                    {
                        changed = mark_value(v) || changed;
                    }
                    for (region_id child : n.regions)
                    {
                        for (value_id v : m_graph.get_region(child).results)
                        {
                            changed = mark_value(v) || changed;
                        }
                        changed = mark_region(child) || changed;
                    }
                }
                return changed;
            }

            // The node and everything in its regions, which go with it.
            int count_nested(node_id n) const
            {
                int count = 1;
                for (region_id child : m_graph.get_node(n).regions)
                {
                    for (node_id inner : m_graph.get_region(child).nodes)
                    {
                        count += count_nested(inner);
                    }
                }
                return count;
            }

            int sweep(region_id r)
            {
                int removed = 0;
                const std::vector<node_id> nodes = m_graph.get_region(r).nodes;
                for (auto it = nodes.rbegin(); it != nodes.rend(); ++it)
                {
                    if (!m_live_nodes.count(*it))
                    {
                        removed += count_nested(*it);
                        m_graph.erase_node(*it);
                        continue;
                    }
                    for (region_id child : m_graph.get_node(*it).regions)
                    {
                        removed += sweep(child);
                    }
                }
                return removed;
            }

            graph& m_graph;
            dce_options m_options;
            std::vector<bool> m_live_values;
            std::set<node_id> m_live_nodes;
        };
    } // namespace

    int eliminate_dead_code(graph& g, const dce_options& options)
    {
        return dce(g, options).run();
    }
} // namespace specula::ir
