// The node data a recursion over a tree reads (recursion.cpp), as graph
// inputs: one table per (kind, attribute), one entry per node in post-order,
// laid out by the runner's walk (engine/tree_inputs.*). The current node's
// entries are gathered once, at the top of the loop body, whatever path of
// the body reads them; a check on a child ("not None") is asserted once per
// region. Every node costs a few executor ops less.
#include "engine/converter/converter.hpp"

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
        gi.tree_table = index;
        m_spec->inputs.push_back(gi);
        m_tree->table_values[index] = in;
        return in;
    }

    // Row `index` of a node table: for the current node, one gather at the
    // top of the loop body (every region of the body sees it).
    ir::value_id converter::tree_gather(tree_table::kind k, const std::string& field,
                                        ir::value_id index)
    {
        const ir::value_id table = tree_table_value(k, field);
        if (index != m_tree->node || m_tree->body == ir::no_id)
        {
            return m_builder->gather(table, index, 0);
        }
        auto found = m_tree->gathered.find(table);
        if (found != m_tree->gathered.end())
        {
            return found->second;
        }
        ir::builder::insertion_guard keep(*m_builder);
        const auto& nodes = p_graph->get_region(m_tree->body).nodes;
        if (nodes.empty())
        {
            m_builder->set_insertion_end(m_tree->body);
        }
        else
        {
            m_builder->set_insertion_before(nodes.front());
        }
        const ir::value_id v = m_builder->gather(table, index, 0);
        m_tree->gathered[table] = v;
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
} // namespace specula::engine::converter
