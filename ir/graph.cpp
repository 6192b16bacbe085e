#include "ir/graph.hpp"

#include <algorithm>

namespace specula::ir
{
    std::string value_type::to_string() const
    {
        return std::string(dtype_short_name(elem)) + dims.to_string();
    }

    graph::graph(std::string name) : m_name(std::move(name))
    {
        add_region({});
    }

    void graph::reserve_symbols(std::int32_t count)
    {
        m_next_symbol = std::max(m_next_symbol, count);
    }

    std::int32_t graph::trimmed_symbol(std::int32_t base, std::int64_t trim)
    {
        auto derived = m_trim_of.find(base);
        if (derived != m_trim_of.end())
        {
            trim += derived->second.second;
            base = derived->second.first;
        }
        const auto key = std::make_pair(base, trim);
        auto found = m_trimmed.find(key);
        if (found != m_trimmed.end())
        {
            return found->second;
        }
        const std::int32_t s = new_symbol();
        m_trimmed[key] = s;
        m_trim_of[s] = key;
        return s;
    }

    std::optional<std::int32_t> graph::find_trimmed_symbol(std::int32_t base,
                                                           std::int64_t trim) const
    {
        auto derived = m_trim_of.find(base);
        if (derived != m_trim_of.end())
        {
            trim += derived->second.second;
            base = derived->second.first;
        }
        auto found = m_trimmed.find(std::make_pair(base, trim));
        if (found == m_trimmed.end())
        {
            return std::nullopt;
        }
        return found->second;
    }

    value_id graph::add_value(value_type type, node_id def, region_id r, std::uint32_t index)
    {
        value v;
        v.id = static_cast<value_id>(m_values.size());
        v.type = std::move(type);
        v.def = def;
        v.region = r;
        v.index = index;
        m_values.push_back(std::move(v));
        return m_values.back().id;
    }

    value_id graph::add_region_arg(region_id r, value_type type)
    {
        const auto index = static_cast<std::uint32_t>(m_regions[r].args.size());
        const value_id v = add_value(std::move(type), no_id, r, index);
        m_regions[r].args.push_back(v);
        return v;
    }

    region_id graph::add_region(const std::vector<value_type>& arg_types)
    {
        region r;
        r.id = static_cast<region_id>(m_regions.size());
        m_regions.push_back(r);
        for (size_t i = 0; i < arg_types.size(); ++i)
        {
            const value_id v = add_value(arg_types[i], no_id, r.id, static_cast<std::uint32_t>(i));
            m_regions.back().args.push_back(v);
        }
        return r.id;
    }

    node_id graph::add_node(op code, std::vector<value_id> inputs,
                            const std::vector<value_type>& output_types, attribute attr,
                            std::vector<region_id> regions, region_id r, std::size_t pos)
    {
        node n;
        n.id = static_cast<node_id>(m_nodes.size());
        n.code = code;
        n.inputs = std::move(inputs);
        n.attr = std::move(attr);
        n.regions = std::move(regions);
        n.parent = r;
        m_nodes.push_back(std::move(n));
        node& stored = m_nodes.back();
        const node_id id = stored.id;
        for (size_t i = 0; i < output_types.size(); ++i)
        {
            const value_id v = add_value(output_types[i], id, r, static_cast<std::uint32_t>(i));
            m_nodes[id].outputs.push_back(v);
        }
        for (region_id child : m_nodes[id].regions)
        {
            m_regions[child].parent = id;
        }
        auto& list = m_regions[r].nodes;
        list.insert(list.begin() + static_cast<std::ptrdiff_t>(std::min(pos, list.size())), id);
        return id;
    }

    std::vector<node_id> graph::inputs() const
    {
        std::vector<node_id> out;
        for (node_id n : m_regions[0].nodes)
        {
            if (m_nodes[n].code == op::INPUT || m_nodes[n].code == op::PARAM)
            {
                out.push_back(n);
            }
        }
        std::sort(out.begin(), out.end(),
                  [this](node_id a, node_id b) {
                      return m_nodes[a].attr_as<boundary_attr>().index <
                             m_nodes[b].attr_as<boundary_attr>().index;
                  });
        return out;
    }

    std::vector<node_id> graph::outputs() const
    {
        std::vector<node_id> out;
        for (node_id n : m_regions[0].nodes)
        {
            if (m_nodes[n].code == op::OUTPUT)
            {
                out.push_back(n);
            }
        }
        std::sort(out.begin(), out.end(),
                  [this](node_id a, node_id b) {
                      return m_nodes[a].attr_as<boundary_attr>().index <
                             m_nodes[b].attr_as<boundary_attr>().index;
                  });
        return out;
    }

    void graph::replace_all_uses(value_id from, value_id to)
    {
        for (node& n : m_nodes)
        {
            if (n.erased)
            {
                continue;
            }
            std::replace(n.inputs.begin(), n.inputs.end(), from, to);
        }
        for (region& r : m_regions)
        {
            std::replace(r.results.begin(), r.results.end(), from, to);
        }
    }

    void graph::erase_node(node_id n)
    {
        node& nd = m_nodes[n];
        if (nd.erased)
        {
            return;
        }
        auto& list = m_regions[nd.parent].nodes;
        list.erase(std::remove(list.begin(), list.end(), n), list.end());
        nd.erased = true;
    }

    std::size_t graph::position(node_id n) const
    {
        const auto& list = m_regions[m_nodes[n].parent].nodes;
        return static_cast<std::size_t>(std::find(list.begin(), list.end(), n) - list.begin());
    }

    namespace
    {
        void walk_region(const graph& g, region_id r, std::vector<node_id>& out)
        {
            for (node_id n : g.get_region(r).nodes)
            {
                out.push_back(n);
                for (region_id child : g.get_node(n).regions)
                {
                    walk_region(g, child, out);
                }
            }
        }
    } // namespace

    std::vector<int> graph::count_uses() const
    {
        std::vector<int> uses(num_values(), 0);
        for (node_id id : walk())
        {
            for (value_id v : get_node(id).inputs)
            {
                ++uses[v];
            }
        }
        for (const region& r : m_regions)
        {
            for (value_id v : r.results)
            {
                ++uses[v];
            }
        }
        return uses;
    }

    std::vector<node_id> graph::walk() const
    {
        std::vector<node_id> out;
        walk_region(*this, body(), out);
        return out;
    }

    bool graph::is_ancestor_region(region_id outer, region_id inner) const
    {
        region_id r = inner;
        while (r != no_id)
        {
            if (r == outer)
            {
                return true;
            }
            const node_id p = m_regions[r].parent;
            r = p == no_id ? no_id : m_nodes[p].parent;
        }
        return false;
    }

    module::module(module&& other) noexcept :m_graphs(std::move(other.m_graphs))
    {
        for (auto& kv : m_graphs)
        {
            kv.second->p_module = this;
        }
    }

    module& module::operator=(module&& other) noexcept
    {
        m_graphs = std::move(other.m_graphs);
        for (auto& kv : m_graphs)
        {
            kv.second->p_module = this;
        }
        return *this;
    }

    graph& module::add_graph(const std::string& name)
    {
        auto& slot = m_graphs[name];
        if (!slot)
        {
            slot = std::make_unique<graph>(name);
            slot->p_module = this;
        }
        return *slot;
    }

    graph* module::find(const std::string& name)
    {
        auto it = m_graphs.find(name);
        return it == m_graphs.end() ? nullptr : it->second.get();
    }

    const graph* module::find(const std::string& name) const
    {
        auto it = m_graphs.find(name);
        return it == m_graphs.end() ? nullptr : it->second.get();
    }

    std::vector<std::string> module::names() const
    {
        std::vector<std::string> out;
        for (const auto& kv : m_graphs)
        {
            out.push_back(kv.first);
        }
        return out;
    }
} // namespace specula::ir
