#include "ir/passes/fuse_elementwise.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

namespace specula::ir
{
    namespace
    {
        // A group becomes one kernel program; backends keep its values in a
        // fixed table (the CPU backend's ew_runner holds 64), so groups stay
        // well below that.
        constexpr std::size_t max_group_values = 48;

        void collect_captures(const graph& g, region_id r, std::set<value_id>& out)
        {
            for (node_id id : g.get_region(r).nodes)
            {
                const node& n = g.get_node(id);
                out.insert(n.inputs.begin(), n.inputs.end());
                for (region_id child : n.regions)
                {
                    collect_captures(g, child, out);
                }
            }
            const auto& res = g.get_region(r).results;
            out.insert(res.begin(), res.end());
        }

        class fuser
        {
        public:
            explicit fuser(graph& g) : m_graph(g) {}

            int run()
            {
                const std::size_t n_nodes = m_graph.num_nodes();
                m_index.assign(n_nodes, -1);
                m_order.assign(n_nodes, 0);
                m_seen.assign(n_nodes, 0);
                for (node_id n : m_graph.walk())
                {
                    m_graph.get_node(n).group = -1;
                }
                run_region(m_graph.body());
                return number_groups();
            }

        private:
            bool fusible(const node& n) const
            {
                return has(n.code, prop::ELEMENTWISE) && n.outputs.size() == 1;
            }

            int find(int x)
            {
                while (m_parent[x] != x)
                {
                    x = m_parent[x] = m_parent[m_parent[x]];
                }
                return x;
            }

            // Producers of n in the same region (through inputs and captures),
            // found once per node: the merge checks ask for the same nodes again
            // and again, and a loop's captures take a walk of its body.
            const std::vector<node_id>& producers(node_id n)
            {
                auto known = m_producers.find(n);
                if (known != m_producers.end())
                {
                    return known->second;
                }
                std::vector<node_id>& out = m_producers[n];
                const region_id r = m_graph.get_node(n).parent;
                for (value_id v : operands_with_captures(m_graph, n))
                {
                    const value& val = m_graph.get(v);
                    if (val.def != no_id && m_graph.get_node(val.def).parent == r)
                    {
                        out.push_back(val.def);
                    }
                }
                return out;
            }

            bool in_set(node_id n, int a, int b)
            {
                if (m_index[n] < 0)
                {
                    return false;
                }
                const int root = find(m_index[n]);
                return root == a || root == b;
            }

            // Does `from` (outside the merged set) depend on a member of it? Nodes
            // placed before the set's first member cannot.
            // Nodes visited in the current check carry its stamp (no set to
            // allocate per merge).
            bool reaches(node_id from, int a, int b, std::size_t first)
            {
                if (m_order[from] < first || m_seen[from] == m_stamp)
                {
                    return false;
                }
                m_seen[from] = m_stamp;
                for (node_id p : producers(from))
                {
                    if (in_set(p, a, b) || reaches(p, a, b, first))
                    {
                        return true;
                    }
                }
                return false;
            }

            // Merging groups a and b is legal when no path leaves the union and comes
            // back into it: the fused loop could not be scheduled.
            bool merge_is_acyclic(int a, int b)
            {
                std::size_t first = SIZE_MAX;
                for (int root : {a, b})
                {
                    for (node_id m : m_members[root])
                    {
                        first = std::min(first, m_order[m]);
                    }
                }
                ++m_stamp;
                for (int root : {a, b})
                {
                    for (node_id member : m_members[root])
                    {
                        for (node_id p : producers(member))
                        {
                            if (!in_set(p, a, b) && reaches(p, a, b, first))
                            {
                                return false;
                            }
                        }
                    }
                }
                return true;
            }

            // The values a merged group's program holds: one per member plus one
            // per distinct value read from outside the group.
            std::size_t values_of(int a, int b) const
            {
                std::set<node_id> members(m_members.at(a).begin(), m_members.at(a).end());
                members.insert(m_members.at(b).begin(), m_members.at(b).end());
                std::set<value_id> outside;
                for (node_id id : members)
                {
                    for (value_id v : m_graph.get_node(id).inputs)
                    {
                        const node_id def = m_graph.get(v).def;
                        if (def == no_id || members.count(def) == 0)
                        {
                            outside.insert(v);
                        }
                    }
                }
                return members.size() + outside.size();
            }

            void unite(int into, int from)
            {
                m_parent[from] = into;
                auto& dst = m_members[into];
                auto& src = m_members[from];
                dst.insert(dst.end(), src.begin(), src.end());
                m_members.erase(from);
            }

            void run_region(region_id r)
            {
                const auto& nodes = m_graph.get_region(r).nodes;
                for (std::size_t i = 0; i < nodes.size(); ++i)
                {
                    m_order[nodes[i]] = i;
                }
                for (node_id id : nodes)
                {
                    const node& n = m_graph.get_node(id);
                    for (region_id child : n.regions)
                    {
                        run_region(child);
                    }
                    if (!fusible(n))
                    {
                        continue;
                    }
                    const int self = static_cast<int>(m_parent.size());
                    m_parent.push_back(self);
                    m_index[id] = self;
                    m_members[self] = {id};
                    const value_type& t = m_graph.type_of(n.outputs[0]);
                    for (node_id p : producers(id))
                    {
                        if (m_index[p] < 0 ||
                            m_graph.type_of(m_graph.get_node(p).outputs[0]).dims != t.dims)
                        {
                            continue;
                        }
                        const int g = find(m_index[p]);
                        if (g != find(self) && values_of(g, find(self)) <= max_group_values &&
                            merge_is_acyclic(g, find(self)))
                        {
                            unite(g, find(self));
                        }
                    }
                }
            }

            int number_groups()
            {
                std::map<int, std::vector<node_id>> members;
                for (std::size_t node = 0; node < m_index.size(); ++node)
                {
                    if (m_index[node] >= 0)
                    {
                        members[find(m_index[node])].push_back(static_cast<node_id>(node));
                    }
                }
                int next = 0;
                for (const auto& [root, nodes] : members)
                {
                    if (nodes.size() < 2)
                    {
                        continue;
                    }
                    for (node_id n : nodes)
                    {
                        m_graph.get_node(n).group = next;
                    }
                    ++next;
                }
                return next;
            }

            graph& m_graph;
            std::vector<int> m_parent;
            std::vector<int> m_index; // node -> its singleton's index, -1: not fusible
            std::map<int, std::vector<node_id>> m_members; // root -> nodes of the group
            std::vector<std::size_t> m_order;              // position in its region
            std::vector<unsigned> m_seen;                  // stamp of the last check that saw it
            unsigned m_stamp = 0;
            std::map<node_id, std::vector<node_id>> m_producers;
        };
    } // namespace

    std::vector<value_id> operands_with_captures(const graph& g, node_id n)
    {
        const node& nd = g.get_node(n);
        std::set<value_id> all(nd.inputs.begin(), nd.inputs.end());
        for (region_id r : nd.regions)
        {
            std::set<value_id> inner;
            collect_captures(g, r, inner);
            for (value_id v : inner)
            {
                const region_id def_region = g.get(v).region;
                // Captured: defined outside the op's regions.
                if (!g.is_ancestor_region(r, def_region))
                {
                    all.insert(v);
                }
            }
        }
        return std::vector<value_id>(all.begin(), all.end());
    }

    int fuse_elementwise(graph& g)
    {
        return fuser(g).run();
    }
} // namespace specula::ir
