#include "ir/passes/plan_memory.hpp"

#include <algorithm>
#include <map>

namespace specula::ir
{
    namespace
    {
        constexpr std::int64_t g_forever = INT64_MAX;

        class planner
        {
        public:
            planner(const graph& g, const std::vector<std::vector<node_id>>& groups,
                    const std::vector<node_id>& views)
                : m_graph(g)
            {
                m_is_view.assign(g.num_nodes(), false);
                for (node_id v : views)
                {
                    m_is_view[v] = true;
                }
                for (const auto& members : groups)
                {
                    for (node_id m : members)
                    {
                        m_group_of[m] = &members;
                    }
                }
                const size_t nv = g.num_values();
                m_plan.kind.assign(nv, storage::none);
                m_plan.buffer_of.assign(nv, -1);
                m_plan.in_place_input.assign(g.num_nodes(), -1);
                m_plan.live_first.assign(nv, -1);
                m_plan.live_last.assign(nv, -1);
                m_plan.alias_of.resize(nv);
                for (value_id v = 0; v < nv; ++v)
                {
                    m_plan.alias_of[v] = v;
                }
                m_end.assign(g.num_nodes(), 0);
            }

            memory_plan run()
            {
                number_region(m_graph.body());
                liveness_region(m_graph.body());
                alias_views();
                allocate();
                return std::move(m_plan);
            }

        private:
            // Positions: a node gets one; a control-flow node spans its regions, and
            // m_end records the last position inside it.
            void number_region(region_id r)
            {
                for (value_id a : m_graph.get_region(r).args)
                {
                    define(a, m_next);
                }
                for (node_id id : m_graph.get_region(r).nodes)
                {
                    const node& n = m_graph.get_node(id);
                    auto group = m_group_of.find(id);
                    if (group != m_group_of.end() && group->second->back() != id)
                    {
                        continue; // numbered with its group's last member
                    }
                    m_pos[id] = m_next++;
                    for (region_id child : n.regions)
                    {
                        number_region(child);
                    }
                    m_end[id] = m_next++;
                    for (value_id v : n.outputs)
                    {
                        define(v, m_end[id]);
                    }
                    if (group != m_group_of.end())
                    {
                        number_group(*group->second, id);
                    }
                }
            }

            void number_group(const std::vector<node_id>& members, node_id last)
            {
                for (node_id m : members)
                {
                    m_pos[m] = m_pos[last];
                    m_end[m] = m_end[last];
                    for (value_id v : m_graph.get_node(m).outputs)
                    {
                        define(v, m_end[last]);
                    }
                }
            }

            void define(value_id v, std::int64_t at)
            {
                m_plan.live_first[v] = at;
                m_plan.live_last[v] = at;
            }

            // A use at node `user` (in region `r`) keeps v live until the end of the
            // outermost control-flow op between v's region and r, since loops rerun.
            std::int64_t use_position(value_id v, node_id user) const
            {
                // At the op's end, where its outputs are defined: an input stays live
                // while the op writes, so only an explicit in-place may share.
                std::int64_t at = m_end[user];
                const region_id home = m_graph.get(v).region;
                region_id r = m_graph.get_node(user).parent;
                while (r != home && r != no_id)
                {
                    const node_id owner = m_graph.get_region(r).parent;
                    if (owner == no_id)
                    {
                        break;
                    }
                    at = m_end[owner];
                    r = m_graph.get_node(owner).parent;
                }
                return at;
            }

            void use(value_id v, node_id user)
            {
                m_plan.live_last[v] = std::max(m_plan.live_last[v], use_position(v, user));
            }

            void liveness_region(region_id r)
            {
                for (node_id id : m_graph.get_region(r).nodes)
                {
                    const node& n = m_graph.get_node(id);
                    for (value_id v : n.inputs)
                    {
                        use(v, id);
                        if (n.code == op::OUTPUT)
                        {
                            m_plan.live_last[v] = g_forever;
                        }
                    }
                    for (region_id child : n.regions)
                    {
                        liveness_region(child);
                        const region& reg = m_graph.get_region(child);
                        for (value_id v : reg.results)
                        {
                            // Read when the op finishes (or the loop iterates).
                            m_plan.live_last[v] =
                                std::max(m_plan.live_last[v], use_position(v, id));
                            m_plan.live_last[v] = std::max(m_plan.live_last[v], m_end[id]);
                        }
                        for (value_id a : reg.args)
                        {
                            m_plan.live_last[a] = std::max(m_plan.live_last[a], m_end[id]);
                        }
                    }
                }
            }

            bool is_view_value(value_id v) const
            {
                const value& val = m_graph.get(v);
                return val.def != no_id && val.index == 0 && m_is_view[val.def];
            }

            value_id root_of(value_id v)
            {
                if (m_plan.alias_of[v] == v && is_view_value(v))
                {
                    m_plan.alias_of[v] = root_of(m_graph.get_node(m_graph.get(v).def).inputs[0]);
                }
                return m_plan.alias_of[v];
            }

            // The value owning a view's memory lives as long as its last view.
            void alias_views()
            {
                for (value_id v = 0; v < m_graph.num_values(); ++v)
                {
                    if (!is_view_value(v) || m_plan.live_first[v] < 0)
                    {
                        continue;
                    }
                    const value_id root = root_of(v);
                    m_plan.live_last[root] = std::max(m_plan.live_last[root], m_plan.live_last[v]);
                }
            }

            static std::string size_key(const value_type& t)
            {
                if (auto n = t.dims.num_elements())
                {
                    return std::to_string(*n * itemsize(t.elem));
                }
                return std::to_string(itemsize(t.elem)) + "x" + t.dims.to_string();
            }

            bool in_place_ok(const node& n, value_id in, value_id out) const
            {
                const value& v = m_graph.get(in);
                if (v.def == no_id || v.region != n.parent || m_plan.kind[in] != storage::planned)
                {
                    return false;
                }
                if (m_graph.type_of(in) != m_graph.type_of(out))
                {
                    return false;
                }
                if (std::count(n.inputs.begin(), n.inputs.end(), in) != 1 &&
                    !has(n.code, prop::ELEMENTWISE))
                {
                    return false;
                }
                // Another operand reading the same memory through a view
                // (x + x.T) would see the result half written.
                for (value_id other : n.inputs)
                {
                    if (other != in && m_plan.alias_of[other] == in)
                    {
                        return false;
                    }
                }
                return m_plan.live_last[in] == m_end[n.id];
            }

            void try_in_place(const node& n)
            {
                if (n.outputs.size() != 1 || m_group_of.count(n.id) != 0)
                {
                    return;
                }
                const bool update = n.code == op::SLICE_UPDATE || n.code == op::GATHER_UPDATE ||
                                    n.code == op::MASK_UPDATE;
                if (!update && !has(n.code, prop::ELEMENTWISE))
                {
                    return;
                }
                // CLIP may run as two passes (max, then min with hi): only x may
                // share its output.
                const size_t candidates = update || n.code == op::CLIP ? 1 : n.inputs.size();
                for (size_t i = 0; i < candidates; ++i)
                {
                    const value_id in = n.inputs[i];
                    if (in_place_ok(n, in, n.outputs[0]))
                    {
                        m_plan.in_place_input[n.id] = static_cast<int>(i);
                        m_plan.buffer_of[n.outputs[0]] = m_plan.buffer_of[in];
                        m_owner[m_plan.buffer_of[in]] = n.outputs[0];
                        return;
                    }
                }
            }

            void classify(value_id v)
            {
                const value& val = m_graph.get(v);
                if (m_plan.live_first[v] < 0)
                {
                    return;
                }
                const op code = val.def == no_id ? op::LOOP : m_graph.get_node(val.def).code;
                if (val.def != no_id && m_group_of.count(val.def) != 0 &&
                    m_plan.live_last[v] == m_plan.live_first[v])
                {
                    return; // a fused group's temporary: never in memory
                }
                if (is_view_value(v))
                {
                    m_plan.kind[v] = storage::view;
                }
                else if (code == op::INPUT || code == op::PARAM)
                {
                    m_plan.kind[v] = storage::external;
                }
                else if (code == op::CONSTANT)
                {
                    m_plan.kind[v] = storage::constant;
                }
                else
                {
                    m_plan.kind[v] = storage::planned;
                }
            }

            void release_dead(std::int64_t now)
            {
                for (auto it = m_owner.begin(); it != m_owner.end();)
                {
                    if (m_plan.live_last[it->second] < now)
                    {
                        m_free.emplace(
                            size_key(m_plan.buffers[static_cast<size_t>(it->first)].type),
                            it->first);
                        it = m_owner.erase(it);
                    }
                    else
                    {
                        ++it;
                    }
                }
            }

            void assign_buffer(value_id v)
            {
                const value_type& t = m_graph.type_of(v);
                auto it = m_free.find(size_key(t));
                int b = -1;
                if (it != m_free.end())
                {
                    b = it->second;
                    m_free.erase(it);
                }
                else
                {
                    b = static_cast<int>(m_plan.buffers.size());
                    const auto n = t.dims.num_elements();
                    m_plan.buffers.push_back({t, n ? *n * itemsize(t.elem) : -1});
                }
                m_plan.buffer_of[v] = b;
                m_owner[b] = v;
            }

            // Values in definition order; a buffer is free once its last value died.
            void allocate()
            {
                std::vector<value_id> order;
                for (value_id v = 0; v < m_graph.num_values(); ++v)
                {
                    classify(v);
                    if (m_plan.kind[v] == storage::planned)
                    {
                        order.push_back(v);
                    }
                }
                std::stable_sort(order.begin(), order.end(),
                                 [this](value_id a, value_id b)
                                 { return m_plan.live_first[a] < m_plan.live_first[b]; });
                for (value_id v : order)
                {
                    const std::int64_t now = m_plan.live_first[v];
                    const value& val = m_graph.get(v);
                    if (val.def != no_id && val.index == 0)
                    {
                        try_in_place(m_graph.get_node(val.def));
                    }
                    if (m_plan.buffer_of[v] < 0)
                    {
                        release_dead(now);
                        assign_buffer(v);
                    }
                }
            }

            const graph& m_graph;
            memory_plan m_plan;
            std::map<node_id, std::int64_t> m_pos;
            std::vector<std::int64_t> m_end;
            std::int64_t m_next = 0;
            std::map<node_id, const std::vector<node_id>*> m_group_of; // member -> group
            std::vector<bool> m_is_view;                               // per node id
            std::map<int, value_id> m_owner;        // buffer -> value now holding it
            std::multimap<std::string, int> m_free; // size key -> free buffer
        };
    } // namespace

    memory_plan plan_memory(const graph& g, const std::vector<std::vector<node_id>>& groups,
                            const std::vector<node_id>& views)
    {
        return planner(g, groups, views).run();
    }

    std::string memory_plan::to_string(const graph& g) const
    {
        std::string out;
        for (node_id id : g.walk())
        {
            const node& n = g.get_node(id);
            for (value_id v : n.outputs)
            {
                if (kind[v] == storage::view)
                {
                    out += "node " + std::to_string(id) + " " + std::string(mnemonic(n.code)) +
                           " -> view of value " + std::to_string(alias_of[v]) + "\n";
                }
                if (kind[v] != storage::planned)
                {
                    continue;
                }
                out += "node " + std::to_string(id) + " " + std::string(mnemonic(n.code)) +
                       " -> buffer " + std::to_string(buffer_of[v]);
                if (in_place_input[id] >= 0)
                {
                    out += " (in place of input " + std::to_string(in_place_input[id]) + ")";
                }
                out += "\n";
            }
        }
        return out + std::to_string(buffers.size()) + " buffers\n";
    }
} // namespace specula::ir
