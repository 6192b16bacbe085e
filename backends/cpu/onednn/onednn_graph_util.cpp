#include "backends/cpu/onednn/onednn_graph_util.hpp"

#include "ir/passes/fuse_elementwise.hpp"

namespace specula::backends::cpu::onednn
{
    bool is_f32(const ir::graph& g, ir::value_id v)
    {
        return v != ir::no_id && g.type_of(v).elem == ir::dtype::float32;
    }

    bool has_shape(const ir::graph& g, ir::value_id v, const std::vector<std::int64_t>& shape)
    {
        auto s = g.type_of(v).dims.static_sizes();
        return s && *s == shape;
    }

    bool broadcasts_to(const ir::graph& g, ir::value_id v, const std::vector<std::int64_t>& shape)
    {
        auto s = g.type_of(v).dims.static_sizes();
        if (!s || s->size() > shape.size())
        {
            return false;
        }
        const std::size_t lead = shape.size() - s->size();
        for (std::size_t i = 0; i < s->size(); ++i)
        {
            if ((*s)[i] != 1 && (*s)[i] != shape[lead + i])
            {
                return false;
            }
        }
        return true;
    }

    std::optional<double> scalar_constant(const ir::graph& g, ir::value_id v)
    {
        const ir::node_id def = g.get(v).def;
        if (def == ir::no_id || g.get_node(def).code != ir::op::CONSTANT)
        {
            return std::nullopt;
        }
        const auto& c = g.get_node(def).attr_as<ir::constant_attr>();
        if (c.size() != 1 || (c.elem != ir::dtype::float32 && c.elem != ir::dtype::float64))
        {
            return std::nullopt;
        }
        return c.element(0).as_double();
    }

    std::vector<const ir::node*> users(const ir::graph& g, ir::value_id v)
    {
        std::vector<const ir::node*> found;
        const ir::node_id def = g.get(v).def;
        if (def == ir::no_id)
        {
            return found;
        }
        for (ir::node_id id : g.get_region(g.get_node(def).parent).nodes)
        {
            for (ir::value_id in : ir::operands_with_captures(g, id))
            {
                if (in == v)
                {
                    found.push_back(&g.get_node(id));
                    break;
                }
            }
        }
        return found;
    }

    bool reduces_last_axis_keepdims(const ir::graph& g, const ir::node& n, ir::op code)
    {
        if (n.code != code || n.inputs.size() != 1 || !is_f32(g, n.inputs[0]))
        {
            return false;
        }
        auto s = g.type_of(n.inputs[0]).dims.static_sizes();
        if (!s || s->empty() || s->size() > 6)
        {
            return false;
        }
        const auto& a = n.attr_as<ir::reduce_attr>();
        const int last = static_cast<int>(s->size()) - 1;
        const bool last_only = a.all_axes ? last == 0 : a.axes == std::vector<int>{last};
        return last_only && a.keepdims;
    }

    const ir::node* only_user(const ir::graph& g, ir::value_id v)
    {
        const ir::node_id def = g.get(v).def;
        if (def == ir::no_id)
        {
            return nullptr;
        }
        const ir::region& r = g.get_region(g.get_node(def).parent);
        const ir::node* user = nullptr;
        for (ir::node_id id : r.nodes)
        {
            for (ir::value_id in : ir::operands_with_captures(g, id))
            {
                if (in == v)
                {
                    if (user != nullptr && user->id != id)
                    {
                        return nullptr;
                    }
                    user = &g.get_node(id);
                }
            }
        }
        return user;
    }

    std::vector<fused_group> single_output_groups(const ir::graph& g,
                                                  const pattern_members& members_at)
    {
        std::vector<fused_group> found;
        for (ir::region_id r = 0; r < g.num_regions(); ++r)
        {
            for (ir::node_id id : g.get_region(r).nodes)
            {
                auto members = members_at(g.get_node(id));
                if (!members)
                {
                    continue;
                }
                fused_group fg;
                fg.region = r;
                fg.members = std::move(*members);
                if (finish_group(g, fg) && fg.outputs.size() == 1)
                {
                    found.push_back(std::move(fg));
                }
            }
        }
        return found;
    }
} // namespace specula::backends::cpu::onednn
