// The node data a recursion over a tree reads (recursion.cpp), as graph
// inputs: one table per (kind, attribute), one entry per node in post-order,
// laid out by the runner's walk (engine/tree_inputs.*). The current node's
// entries are gathered once per region that reads them, at its top: an entry
// read by the body itself serves every path, one read only on one side of an
// `if` (a leaf's word, an inner node's children) is gathered on that side
// only. A check on a child ("not None") is asserted once per region, and not
// at all where the `if` around it already decided it. Every op saved here is
// saved once per node.
#include "engine/converter/converter.hpp"

#include <algorithm>

namespace specula::engine::converter
{
    ir::value_id converter::hoisted_input(const ir::value_type& type, const std::string& name)
    {
        // Inputs belong to the graph's body, also when first read inside a
        // branch or the recursion's loop (whose op is created after its body).
        ir::builder::insertion_guard keep(*m_builder);
        m_builder->set_insertion_end(p_graph->body());
        return m_builder->input(type, name);
    }

    ir::value_id converter::tree_table_value(tree_table::kind k, const std::string& field)
    {
        const int index = m_tree->plan->table_index(k, field);
        auto found = m_tree->table_values.find(index);
        if (found != m_tree->table_values.end())
        {
            return found->second;
        }
        const ir::dtype elem = k == tree_table::kind::is_none ? ir::dtype::bool_ : ir::dtype::int64;
        const char* what = k == tree_table::kind::child     ? ".index"
                           : k == tree_table::kind::is_none ? ".is_none"
                                                            : "";
        ir::value_id in = hoisted_input({elem, ir::shape({ir::dim::symbol(m_tree->symbol)})},
                                        "tree." + field + what);
        graph_input gi;
        gi.tree = m_tree->plan_index;
        gi.tree_table = index;
        m_spec->inputs.push_back(gi);
        m_tree->table_values[index] = in;
        return in;
    }

    // Row `index` of a node table: for the current node, one gather at the
    // top of the region reading it (the body's serves every region).
    ir::value_id converter::tree_gather(tree_table::kind k, const std::string& field,
                                        ir::value_id index)
    {
        const ir::value_id table = tree_table_value(k, field);
        if (index != m_tree->node || m_tree->body == ir::no_id)
        {
            return m_builder->gather(table, index, 0);
        }
        const ir::region_id here = m_builder->insertion_region();
        for (const ir::region_id r : {m_tree->body, here})
        {
            auto found = m_tree->gathered.find({table, r});
            if (found != m_tree->gathered.end())
            {
                return found->second;
            }
        }
        ir::builder::insertion_guard keep(*m_builder);
        const auto& nodes = p_graph->get_region(here).nodes;
        if (nodes.empty())
        {
            m_builder->set_insertion_end(here);
        }
        else
        {
            m_builder->set_insertion_before(nodes.front());
        }
        const ir::value_id v = m_builder->gather(table, index, 0);
        m_tree->gathered[{table, here}] = v;
        return v;
    }

    // An int64 constant in the graph's body, made once.
    ir::value_id converter::tree_int(std::int64_t v)
    {
        auto found = m_tree->ints.find(v);
        if (found != m_tree->ints.end())
        {
            return found->second;
        }
        ir::builder::insertion_guard keep(*m_builder);
        m_builder->set_insertion_end(p_graph->body());
        const ir::value_id c = m_builder->constant(ir::scalar::of_int(ir::dtype::int64, v));
        m_tree->ints[v] = c;
        return c;
    }

    // Whether the check `key` was already asserted in the region being
    // built (then it need not be again); records it when not.
    bool converter::tree_asserted(const std::string& key)
    {
        return !m_tree->asserted.insert({key, m_builder->insertion_region()}).second;
    }

    namespace
    {
        // The value `v` is computed from when it is LOGICAL_NOT of it, else no_id.
        ir::value_id negated(const ir::graph& g, ir::value_id v)
        {
            const ir::value& val = g.get(v);
            if (val.def == ir::no_id)
            {
                return ir::no_id;
            }
            const ir::node& n = g.get_node(val.def);
            return n.code == ir::op::LOGICAL_NOT ? n.inputs[0] : ir::no_id;
        }

        bool read_anywhere(const ir::graph& g, ir::value_id v)
        {
            for (ir::node_id id : g.walk())
            {
                const ir::node& n = g.get_node(id);
                if (std::find(n.inputs.begin(), n.inputs.end(), v) != n.inputs.end())
                {
                    return true;
                }
                for (ir::region_id r : n.regions)
                {
                    const auto& results = g.get_region(r).results;
                    if (std::find(results.begin(), results.end(), v) != results.end())
                    {
                        return true;
                    }
                }
            }
            return false;
        }
    } // namespace

    // Asserts whose condition the `if` around them already decided (a
    // leaf's `node.word` is not None under `if node.is_leaf()`): dropped,
    // with the negation computed only for them. `facts` are (value, truth)
    // pairs that hold in region `r`.
    void converter::tree_drop_implied_asserts(ir::region_id r,
                                              std::set<std::pair<ir::value_id, bool>> facts)
    {
        const std::vector<ir::node_id> nodes = p_graph->get_region(r).nodes;
        for (ir::node_id id : nodes)
        {
            const ir::node n = p_graph->get_node(id);
            if (n.code == ir::op::IF)
            {
                const ir::value_id c = n.inputs[0];
                const ir::value_id inner = negated(*p_graph, c);
                for (int side = 0; side < 2; ++side)
                {
                    auto known = facts;
                    known.insert({c, side == 0});
                    if (inner != ir::no_id)
                    {
                        known.insert({inner, side != 0});
                    }
                    tree_drop_implied_asserts(n.regions[static_cast<size_t>(side)], known);
                }
                continue;
            }
            if (n.code == ir::op::LOOP)
            {
                tree_drop_implied_asserts(n.regions[0], facts);
                continue;
            }
            if (n.code != ir::op::ASSERT)
            {
                continue;
            }
            const ir::value_id c = n.inputs[0];
            const ir::value_id inner = negated(*p_graph, c);
            if (facts.count({c, true}) == 0 &&
                (inner == ir::no_id || facts.count({inner, false}) == 0))
            {
                continue;
            }
            p_graph->erase_node(id);
            if (inner != ir::no_id && !read_anywhere(*p_graph, c))
            {
                p_graph->erase_node(p_graph->get(c).def);
            }
        }
    }

    // The plan table a node table value is (-1 when it is none).
    namespace
    {
        int table_of(const std::map<int, ir::value_id>& values, ir::value_id v)
        {
            for (const auto& [index, value] : values)
            {
                if (value == v)
                {
                    return index;
                }
            }
            return -1;
        }
    } // namespace

    // The child table whose "present" check `cond` is (`child >= 0` on the
    // current node's entry), or -1.
    int converter::tree_child_check(ir::value_id cond) const
    {
        const ir::value& c = p_graph->get(cond);
        if (c.def == ir::no_id)
        {
            return -1;
        }
        const ir::node& ge = p_graph->get_node(c.def);
        auto zero = m_tree->ints.find(0);
        if (ge.code != ir::op::GE || zero == m_tree->ints.end() || ge.inputs[1] != zero->second)
        {
            return -1;
        }
        const ir::value& child = p_graph->get(ge.inputs[0]);
        if (child.def == ir::no_id)
        {
            return -1;
        }
        const ir::node& g = p_graph->get_node(child.def);
        if (g.code != ir::op::GATHER || g.inputs[1] != m_tree->node)
        {
            return -1;
        }
        const int t = table_of(m_tree->table_values, g.inputs[0]);
        return t >= 0 && m_tree->plan->tables[static_cast<size_t>(t)].k == tree_table::kind::child
                   ? t
                   : -1;
    }

    // The child checks of region `r` (which runs on the nodes whose bool
    // table `when_table` holds `when`) become checks of the walk.
    void converter::tree_hoist_in(ir::region_id r, int when_table, bool when)
    {
        const std::vector<ir::node_id> nodes = p_graph->get_region(r).nodes;
        for (ir::node_id id : nodes)
        {
            const ir::node n = p_graph->get_node(id);
            const int child = n.code == ir::op::ASSERT ? tree_child_check(n.inputs[0]) : -1;
            if (child < 0)
            {
                continue;
            }
            m_tree->plan->required_children.push_back({child, when_table, when});
            p_graph->erase_node(id);
            if (!read_anywhere(*p_graph, n.inputs[0]))
            {
                p_graph->erase_node(p_graph->get(n.inputs[0]).def);
            }
        }
    }

    // "The child is present" checks on the current node depend on the tree
    // only: the walk makes them once per node (no op in the loop), where
    // the body checks them unconditionally or on one side of an `if` on a
    // node's bool entry (`if node.is_leaf()`). Others stay asserts.
    void converter::tree_hoist_child_checks(ir::region_id body)
    {
        tree_hoist_in(body, -1, false);
        const std::vector<ir::node_id> nodes = p_graph->get_region(body).nodes;
        for (ir::node_id id : nodes)
        {
            const ir::node n = p_graph->get_node(id);
            if (n.code != ir::op::IF)
            {
                continue;
            }
            ir::value_id v = n.inputs[0];
            bool negated = false;
            const ir::value& c = p_graph->get(v);
            if (c.def != ir::no_id && p_graph->get_node(c.def).code == ir::op::LOGICAL_NOT)
            {
                v = p_graph->get_node(c.def).inputs[0];
                negated = true;
            }
            const ir::value& g = p_graph->get(v);
            if (g.def == ir::no_id)
            {
                continue;
            }
            const ir::node& gather = p_graph->get_node(g.def);
            if (gather.code != ir::op::GATHER || gather.inputs[1] != m_tree->node)
            {
                continue;
            }
            const int t = table_of(m_tree->table_values, gather.inputs[0]);
            if (t < 0 ||
                m_tree->plan->tables[static_cast<size_t>(t)].k != tree_table::kind::is_none)
            {
                continue;
            }
            // The then side runs where the condition holds: entry == !negated.
            tree_hoist_in(n.regions[0], t, !negated);
            tree_hoist_in(n.regions[1], t, negated);
        }
    }
} // namespace specula::engine::converter
