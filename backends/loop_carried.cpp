// Tables a LOOP carries and updates one row per iteration (the recursion
// over a tree: `results[i] = row`) are written in place. Without this, each
// GATHER_UPDATE copies the whole table into a new buffer (the plan never runs
// in place over a region argument), which makes a loop over n nodes O(n^2).
// The loop copies the initial table once into memory of its own; the update
// then writes its row into the carried buffer, which is legal when nothing
// reads the old table after the update (checked here, at compile time).
#include "backends/executor.hpp"

#include <algorithm>
#include <map>

namespace specula::backends
{
    namespace
    {
        using node_map = std::map<ir::node_id, compiled_node*>;

        // Whether `v` is read by `n` or by anything inside its regions
        // (their results included).
        bool reads(const ir::graph& g, const ir::node& n, ir::value_id v)
        {
            if (std::find(n.inputs.begin(), n.inputs.end(), v) != n.inputs.end())
            {
                return true;
            }
            for (ir::region_id r : n.regions)
            {
                const ir::region& reg = g.get_region(r);
                if (std::find(reg.results.begin(), reg.results.end(), v) != reg.results.end())
                {
                    return true;
                }
                for (ir::node_id m : reg.nodes)
                {
                    if (reads(g, g.get_node(m), v))
                    {
                        return true;
                    }
                }
            }
            return false;
        }

        // Reads of `v` before the update that may keep seeing its memory:
        // a view (a kernel that aliases its input) or a control-flow op
        // handing it on.
        bool aliased(const ir::graph& g, const ir::node& n, ir::value_id v, const node_map& nodes)
        {
            if (std::find(n.inputs.begin(), n.inputs.end(), v) != n.inputs.end())
            {
                if (!n.regions.empty())
                {
                    return true;
                }
                auto cn = nodes.find(n.id);
                if (cn == nodes.end() || cn->second->m_kernel == nullptr ||
                    cn->second->m_kernel->aliases_input())
                {
                    return true;
                }
            }
            for (ir::region_id r : n.regions)
            {
                const ir::region& reg = g.get_region(r);
                if (std::find(reg.results.begin(), reg.results.end(), v) != reg.results.end())
                {
                    return true;
                }
                for (ir::node_id m : reg.nodes)
                {
                    if (aliased(g, g.get_node(m), v, nodes))
                    {
                        return true;
                    }
                }
            }
            return false;
        }

        // The update of carried value `i` of `loop`, when it may run in place.
        compiled_node* in_place_update(const ir::graph& g, const ir::node& loop, std::size_t i,
                                       const node_map& nodes)
        {
            const ir::region& body = g.get_region(loop.regions[0]);
            const std::size_t skip = loop.attr_as<ir::loop_attr>().has_condition ? 1 : 0;
            const ir::value_id arg = body.args[i + 1];
            const ir::value_id result = body.results[i + skip];
            const ir::value& rv = g.get(result);
            if (rv.def == ir::no_id ||
                std::count(body.results.begin(), body.results.end(), result) != 1 ||
                std::count(body.results.begin(), body.results.end(), arg) != 0)
            {
                return nullptr;
            }
            const ir::node& update = g.get_node(rv.def);
            auto cn = nodes.find(update.id);
            if (update.code != ir::op::GATHER_UPDATE || update.parent != body.id ||
                update.inputs[0] != arg || update.inputs[1] == arg || update.inputs[2] == arg ||
                cn == nodes.end() || cn->second->m_kernel == nullptr ||
                cn->second->m_in_place != ir::no_id || cn->second->m_outputs.size() != 1 ||
                cn->second->m_outputs[0] != result)
            {
                return nullptr;
            }
            bool after = false;
            for (ir::node_id m : body.nodes)
            {
                const ir::node& n = g.get_node(m);
                if (m == update.id)
                {
                    after = true;
                    continue;
                }
                if (after ? reads(g, n, arg) : aliased(g, n, arg, nodes))
                {
                    return nullptr;
                }
            }
            return cn->second;
        }
    } // namespace

    void mark_carried_updates(compiled_graph& cg)
    {
        const ir::graph& g = *cg.p_graph;
        node_map nodes;
        for (auto& region : cg.m_regions)
        {
            for (compiled_node& cn : region)
            {
                if (cn.p_node != nullptr)
                {
                    nodes[cn.p_node->id] = &cn;
                }
            }
        }
        for (auto& [id, cn] : nodes)
        {
            const ir::node& loop = *cn->p_node;
            if (loop.code != ir::op::LOOP)
            {
                continue;
            }
            const auto& attr = loop.attr_as<ir::loop_attr>();
            const std::size_t heads = (attr.has_trip_count ? 1 : 0) + (attr.has_condition ? 1 : 0);
            for (std::size_t i = 0; i + heads < loop.inputs.size(); ++i)
            {
                if (compiled_node* update = in_place_update(g, loop, i, nodes))
                {
                    update->m_carried_arg = g.get_region(loop.regions[0]).args[i + 1];
                    cn->m_owned_carried.push_back(i);
                }
            }
        }
    }
} // namespace specula::backends
