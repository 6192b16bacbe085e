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

        // What each node of a region reads (inputs and captures), in the
        // region's order: asked once per region, not once per group.
        std::vector<std::vector<ir::value_id>> region_operands(const ir::graph& g,
                                                               const ir::region& r)
        {
            std::vector<std::vector<ir::value_id>> out;
            out.reserve(r.nodes.size());
            for (ir::node_id id : r.nodes)
            {
                out.push_back(ir::operands_with_captures(g, id));
            }
            return out;
        }

        // The escaping values, or nothing when a non-member between the first
        // and last member reads a member value (it would run before the group).
        // `operands` is region_operands(g, r).
        std::optional<std::vector<ir::value_id>>
        escaping_values(const ir::region& r, const std::vector<std::vector<ir::value_id>>& operands,
                        const fused_group& fg)
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
            for (std::size_t i = 0; i < r.nodes.size(); ++i)
            {
                const ir::node_id id = r.nodes[i];
                inside = inside || id == first;
                if (members.count(id) != 0)
                {
                    inside = inside && id != last;
                    continue;
                }
                for (ir::value_id v : operands[i])
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

        // Bytes of a value of static type; -1 otherwise.
        std::int64_t static_bytes(const ir::graph& g, ir::value_id v)
        {
            const ir::value_type& t = g.type_of(v);
            auto sizes = t.dims.static_sizes();
            if (!sizes)
            {
                return -1;
            }
            std::int64_t bytes = ir::itemsize(t.elem);
            for (std::int64_t d : *sizes)
            {
                bytes *= d;
            }
            return bytes;
        }

        // Whether running the group at its last member would keep too many
        // cache-sized operands waiting for it. An operand a non-member makes
        // between the group's first and last member stays live until the
        // group runs; node by node, each member reads it while it is still
        // in cache, and the plan reuses its memory. A gradient summed over 25
        // time steps (`dW += a @ b.T` unrolled: one group of 25 adds) held 25
        // products (64x64: 800 KiB, 100x100: 2 MiB) and read them all back
        // at the end. Operands larger than the budget count for nothing: they
        // leave the cache either way, and fusing still saves the temporaries'
        // traffic.
        bool holds_too_much(const ir::graph& g, const ir::region& r, const fused_group& fg)
        {
            std::set<ir::value_id> read;
            std::set<ir::node_id> members;
            for (const ir::node* m : fg.members)
            {
                members.insert(m->id);
                read.insert(m->inputs.begin(), m->inputs.end());
            }
            const ir::node_id first = fg.members.front()->id;
            const ir::node_id last = fg.members.back()->id;
            std::int64_t held = 0;
            bool inside = false;
            for (ir::node_id id : r.nodes)
            {
                if (id == last)
                {
                    break;
                }
                inside = inside || id == first;
                if (!inside || members.count(id) != 0)
                {
                    continue;
                }
                for (ir::value_id v : g.get_node(id).outputs)
                {
                    const std::int64_t bytes = static_bytes(g, v);
                    if (read.count(v) != 0 && bytes > 0 && bytes <= held_operand_budget)
                    {
                        held += bytes;
                    }
                }
            }
            return held > held_operand_budget;
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
        const ir::region& r = g.get_region(fg.region);
        auto outs = escaping_values(r, region_operands(g, r), fg);
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
            std::vector<std::vector<ir::value_id>> operands; // made at the first group
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
                if (fg.members.size() < 2 || !same_static_shape(g, fg.members) ||
                    holds_too_much(g, reg, fg))
                {
                    continue;
                }
                if (operands.empty())
                {
                    operands = region_operands(g, reg);
                }
                auto outs = escaping_values(reg, operands, fg);
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
