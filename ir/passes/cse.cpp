#include "ir/passes/cse.hpp"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace specula::ir
{
    namespace
    {
        bool is_candidate(const node& n)
        {
            return !has(n.code, prop::SIDE_EFFECT) && !has(n.code, prop::BOUNDARY) &&
                   !has(n.code, prop::CONTROL_FLOW) && n.code != op::MASK_SELECT;
        }

        std::vector<value_id> key_inputs(const node& n)
        {
            std::vector<value_id> in = n.inputs;
            if (has(n.code, prop::COMMUTATIVE))
            {
                std::sort(in.begin(), in.end());
            }
            return in;
        }

        class cse
        {
        public:
            explicit cse(graph& g) : m_graph(g) {}

            int run()
            {
                run_region(m_graph.body());
                return m_replaced;
            }

        private:
            bool same(const node& a, const node& b) const
            {
                if (a.code != b.code || !(a.attr == b.attr) || key_inputs(a) != key_inputs(b) ||
                    a.outputs.size() != b.outputs.size())
                {
                    return false;
                }
                for (size_t i = 0; i < a.outputs.size(); ++i)
                {
                    if (m_graph.type_of(a.outputs[i]) != m_graph.type_of(b.outputs[i]))
                    {
                        return false;
                    }
                }
                return true;
            }

            std::size_t key_hash(const node& n) const
            {
                std::size_t h = static_cast<std::size_t>(n.code) * 0x9e3779b97f4a7c15ull;
                for (value_id v : key_inputs(n))
                {
                    h = (h ^ v) * 0x100000001b3ull;
                }
                return h ^ n.attr.index();
            }

            // Nodes available in this region: the enclosing scopes' plus earlier ones
            // here. Entries are removed again when the region's scope closes.
            void run_region(region_id r)
            {
                std::vector<std::size_t> scope_keys;
                const std::vector<node_id> nodes = m_graph.get_region(r).nodes;
                for (node_id id : nodes)
                {
                    const node& n = m_graph.get_node(id);
                    for (region_id child : n.regions)
                    {
                        run_region(child);
                    }
                    if (!is_candidate(n))
                    {
                        continue;
                    }
                    const std::size_t h = key_hash(n);
                    auto& bucket = m_available[h];
                    auto match =
                        std::find_if(bucket.begin(), bucket.end(),
                                     [&](node_id o) { return same(m_graph.get_node(o), n); });
                    if (match == bucket.end())
                    {
                        bucket.push_back(id);
                        scope_keys.push_back(h);
                        continue;
                    }
                    const node& keep = m_graph.get_node(*match);
                    for (size_t i = 0; i < n.outputs.size(); ++i)
                    {
                        m_graph.replace_all_uses(n.outputs[i], keep.outputs[i]);
                    }
                    m_graph.erase_node(id);
                    ++m_replaced;
                }
                for (auto it = scope_keys.rbegin(); it != scope_keys.rend(); ++it)
                {
                    m_available[*it].pop_back();
                }
            }

            graph& m_graph;
            std::unordered_map<std::size_t, std::vector<node_id>> m_available;
            int m_replaced = 0;
        };
    } // namespace

    int eliminate_common_subexpressions(graph& g)
    {
        return cse(g).run();
    }
} // namespace specula::ir
