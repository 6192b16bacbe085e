#include "backends/fused_groups.hpp"

#include "ir/passes/fuse_elementwise.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace specula::backends
{
    namespace
    {
        bool same_static_shape(const ir::graph& g, const std::vector<const ir::node*>& members)
        {
            std::optional<std::vector<std::int64_t>> shape;
            for (const ir::node* m : members)
            {
                if (m->outputs.size() != 1)
                {
                    return false;
                }
                auto sizes = g.type_of(m->outputs[0]).dims.static_sizes();
                if (!sizes || (shape && *shape != *sizes))
                {
                    return false;
                }
                shape = sizes;
            }
            return true;
        }

        // The escaping values, or nothing when a non-member between the first
        // and last member reads a member value (it would run before the group).
        std::optional<std::vector<ir::value_id>>
        escaping_values(const ir::graph& g, const ir::region& r, const fused_group& fg)
        {
            std::set<ir::value_id> defined;
            std::set<ir::node_id> members;
            for (const ir::node* m : fg.members)
            {
                defined.insert(m->outputs[0]);
                members.insert(m->id);
            }
            const ir::node_id first = fg.members.front()->id;
            const ir::node_id last = fg.members.back()->id;
            std::set<ir::value_id> escaping;
            bool inside = false;
            for (ir::node_id id : r.nodes)
            {
                inside = inside || id == first;
                if (members.count(id) != 0)
                {
                    inside = inside && id != last;
                    continue;
                }
                for (ir::value_id v : ir::operands_with_captures(g, id))
                {
                    if (defined.count(v) != 0)
                    {
                        if (inside)
                        {
                            return std::nullopt;
                        }
                        escaping.insert(v);
                    }
                }
            }
            for (ir::value_id v : r.results)
            {
                if (defined.count(v) != 0)
                {
                    escaping.insert(v);
                }
            }
            std::vector<ir::value_id> out = {fg.members.back()->outputs[0]};
            for (const ir::node* m : fg.members)
            {
                if (escaping.count(m->outputs[0]) != 0 && m->outputs[0] != out[0])
                {
                    out.push_back(m->outputs[0]);
                }
            }
            return out;
        }
    } // namespace

    bool finish_group(const ir::graph& g, fused_group& fg)
    {
        for (const ir::node* m : fg.members)
        {
            if (m->outputs.size() != 1 || m->parent != fg.region)
            {
                return false;
            }
        }
        auto outs = escaping_values(g, g.get_region(fg.region), fg);
        if (!outs)
        {
            return false;
        }
        fg.outputs = std::move(*outs);
        return true;
    }

    std::vector<fused_group> find_fused_groups(const ir::graph& g)
    {
        std::vector<fused_group> found;
        for (ir::region_id r = 0; r < g.num_regions(); ++r)
        {
            const ir::region& reg = g.get_region(r);
            std::map<int, fused_group> groups;
            for (ir::node_id id : reg.nodes)
            {
                const ir::node& n = g.get_node(id);
                if (n.group >= 0 && ir::has(n.code, ir::prop::ELEMENTWISE))
                {
                    fused_group& fg = groups[n.group];
                    fg.region = r;
                    fg.group = n.group;
                    fg.members.push_back(&n);
                }
            }
            for (auto& [id, fg] : groups)
            {
                if (fg.members.size() < 2 || !same_static_shape(g, fg.members))
                {
                    continue;
                }
                auto outs = escaping_values(g, reg, fg);
                if (!outs)
                {
                    continue;
                }
                fg.outputs = std::move(*outs);
                found.push_back(std::move(fg));
            }
        }
        return found;
    }
} // namespace specula::backends
