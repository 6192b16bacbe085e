// Node attributes set by a recursion over a tree (`node.h = ...`, W4's
// forward): per-node effects. Each attribute is a pair of tables the
// recursion's LOOP carries, one row per node in post-order: the value the
// node got and a tag saying how (not set, a new array, or a row view
// `L[word]` of a user's array). Inside the body the node's own attribute is
// a hidden local (so an `if` on array data merges it like any local); a read
// of a child's attribute reads the child's row, which post-order wrote
// before. After the run the commit (engine/tree_commit.*) sets the
// attributes on the nodes, node by node in post-order, which is the order
// CPython's calls leave them in.
#include "engine/converter/converter.hpp"

#include <algorithm>

namespace specula::engine::converter
{
    namespace
    {
        std::string hidden_value(const std::string& name)
        {
            return "\x01" + name;
        }

        std::string hidden_tag(const std::string& name)
        {
            return "\x01" + name + ".tag";
        }
    } // namespace

    // At the top of the loop body: every attribute the recursion sets starts
    // as "not set on this node" (values hoisted out of the loop).
    void converter::tree_init_attrs()
    {
        for (const tree_knowledge::attr& a : m_tree->known.attrs)
        {
            ir::builder::insertion_guard keep(*m_builder);
            m_builder->set_insertion_end(p_graph->body());
            m_locals[hidden_value(a.name)] =
                new_array(m_builder->zeros(a.type.dims, a.type.elem), surface::ndarray);
            m_locals[hidden_tag(a.name)] =
                new_array(m_builder->constant(
                              ir::scalar::of_int(ir::dtype::int64, tree_attr_write::tag_unwritten)),
                          surface::ndarray);
        }
    }

    // The node's attributes at a return (or the end of the body), appended
    // to the loop body's outcome in the order of the carried tables.
    void converter::tree_outcome(std::vector<cval>& items)
    {
        for (const tree_knowledge::attr& a : m_tree->known.attrs)
        {
            if (m_tree->path_sure.count(a.name) == 0)
            {
                m_tree->maybe_unset.insert(a.name);
            }
            items.push_back(m_locals.at(hidden_value(a.name)));
            items.push_back(m_locals.at(hidden_tag(a.name)));
        }
    }

    // `node.<name> = value` on the recursion's own node.
    void converter::tree_set_attribute(const cval& n, const std::string& name, const cval& value,
                                       py::handle node)
    {
        if (m_inlined.size() != m_tree->depth)
        {
            fail("tree node attribute write ." + name + " inside a called function", node);
        }
        if (m_arrays[static_cast<size_t>(n.arr)].value != m_tree->node)
        {
            fail("attribute write ." + name + " on another node than the recursion's own", node);
        }
        const tree_plan& plan = *m_tree->plan;
        const bool is_child =
            std::find(plan.children.begin(), plan.children.end(), name) != plan.children.end();
        const bool is_field = std::any_of(plan.tables.begin(), plan.tables.end(),
                                          [&](const tree_table& t) { return t.field == name; });
        if (is_child || is_field)
        {
            fail("write of tree node attribute ." + name + " that the recursion reads as tree data",
                 node);
        }
        if (value.k != cval::kind::array ||
            m_arrays[static_cast<size_t>(value.arr)].surf != surface::ndarray)
        {
            fail("storing something other than a NumPy array on a tree node (." + name + ")", node);
        }
        const array_entry e = m_arrays[static_cast<size_t>(value.arr)];
        const ir::value_type type = type_of(e.value);
        if (!type.dims.static_sizes())
        {
            fail("storing arrays of a varying shape on tree nodes (." + name + ")", node);
        }
        // How CPython's object relates to the user's arrays: a new array, or
        // the row view `s[i]` of a source array s (the commit indexes s again).
        std::string view_path;
        ir::value_id tag = ir::no_id;
        if (e.view_of >= 0)
        {
            const array_entry& origin = m_arrays[static_cast<size_t>(e.view_of)];
            const ir::value& v = p_graph->get(e.value);
            const ir::node* g = v.def == ir::no_id ? nullptr : &p_graph->get_node(v.def);
            if (origin.src < 0 || origin.view_of >= 0 || g == nullptr ||
                g->code != ir::op::GATHER || g->inputs[0] != origin.value ||
                m_written_sources.count(origin.src) != 0)
            {
                fail("storing a view on a tree node (." + name +
                         "; only a row `a[i]` of an unchanged input array is converted)",
                     node);
            }
            view_path = m_spec->sources[origin.src].path;
            const std::int64_t rows = type_of(origin.value).dims[0].size();
            m_tree->view_src[name] = {origin.src, rows};
            // The index is asserted in [-rows, rows): the tag is >= 0.
            // Copied first: new nodes may move the graph's node storage.
            const ir::value_id row_index = g->inputs[1];
            tag = m_builder->binary(ir::op::ADD, row_index, tree_int(rows));
        }
        else
        {
            if (e.src >= 0)
            {
                fail("storing an input array itself on a tree node (." + name + ")", node);
            }
            if (e.escaped)
            {
                fail("storing on a tree node an array that is also stored, returned or read from "
                     "another node (." +
                         name + ")",
                     node);
            }
            if (e.unwritten)
            {
                fail("np.empty_like array stored on a tree node before all of it was written",
                     node);
            }
            check_escape_layout(e, node);
            tag = tree_int(tree_attr_write::tag_fresh);
        }
        tree_knowledge& known = m_tree->known;
        const tree_knowledge::attr* a = known.find(name);
        if (a != nullptr && a->type != type)
        {
            fail("tree node attribute ." + name + " set to " + type.to_string() + " and " +
                     a->type.to_string(),
                 node);
        }
        if (a != nullptr && !a->view_path.empty() && !view_path.empty() &&
            a->view_path != view_path)
        {
            fail("tree node attribute ." + name + " set to views of two arrays", node);
        }
        if (a == nullptr || (a->view_path.empty() && !view_path.empty()))
        {
            if (!m_tree->probing)
            {
                fail("tree node attribute ." + name + " set in a way the probes did not see", node);
            }
            tree_learned learned{known};
            auto& attrs = learned.known.attrs;
            auto it = std::find_if(attrs.begin(), attrs.end(),
                                   [&](const tree_knowledge::attr& x) { return x.name == name; });
            if (it == attrs.end())
            {
                attrs.push_back({name, type, view_path});
            }
            else
            {
                it->view_path = view_path;
            }
            throw learned;
        }
        m_arrays[static_cast<size_t>(value.arr)].escaped = true;
        cval stored = new_array(e.value, surface::ndarray);
        m_arrays[static_cast<size_t>(stored.arr)].escaped = true;
        m_locals[hidden_value(name)] = stored;
        m_locals[hidden_tag(name)] = new_array(tag, surface::ndarray);
        auto& path = m_tree->path_writes;
        for (const std::string& earlier : path)
        {
            if (earlier != name)
            {
                m_tree->before.insert({earlier, name});
            }
        }
        if (std::find(path.begin(), path.end(), name) == path.end())
        {
            path.push_back(name);
        }
        m_tree->path_sure.insert(name);
    }

    // `node.<name>` of an attribute the recursion sets: on the node itself,
    // what this call set (refused before it is set: the value would come
    // from before the call); on a child, the child's row (asserted set: the
    // child's call ran first).
    bool converter::tree_written_attribute(const cval& n, const std::string& name, py::handle node,
                                           cval& out)
    {
        if (m_tree->known.find(name) == nullptr)
        {
            return false;
        }
        const ir::value_id index = m_arrays[static_cast<size_t>(n.arr)].value;
        if (index == m_tree->node)
        {
            if (m_tree->path_sure.count(name) == 0)
            {
                fail("read of tree node attribute ." + name +
                         " before the recursion sets it on the node",
                     node);
            }
            // Read-only: an in-place update would have to reach the stored
            // object (a view of the user's array on some paths).
            out = new_array(value_of(m_locals.at(hidden_value(name)), node), surface::ndarray);
            m_arrays[static_cast<size_t>(out.arr)].escaped = true;
            return true;
        }
        const auto& [values, tags] = m_tree->attr_tables.at(name);
        if (m_tree->known.always_set.count(name) == 0)
        {
            const ir::value_id tag = m_builder->gather(tags, index, 0);
            add_assert(m_builder->binary(ir::op::NE, tag, tree_int(tree_attr_write::tag_unwritten)),
                       "tree node attribute ." + name + " not set by the call on that node at " +
                           where(node));
        }
        out = new_array(m_builder->gather(values, index, 0), surface::ndarray);
        // The object CPython reads is the one stored on the child.
        m_arrays[static_cast<size_t>(out.arr)].escaped = true;
        return true;
    }

    // After the loop: the tables become graph outputs and one effect sets
    // the attributes on every node, in an order consistent with every path
    // (it decides the key order of attributes new to a node's __dict__).
    void converter::tree_commit_plan(const std::vector<ir::value_id>& tables, py::handle fdef)
    {
        const auto& attrs = m_tree->known.attrs;
        if (attrs.empty())
        {
            return;
        }
        std::vector<std::string> order;
        std::vector<std::string> left;
        for (const auto& a : attrs)
        {
            left.push_back(a.name);
        }
        while (!left.empty())
        {
            auto next =
                std::find_if(left.begin(), left.end(),
                             [&](const std::string& b)
                             {
                                 return std::none_of(left.begin(), left.end(),
                                                     [&](const std::string& a) {
                                                         return m_tree->before.count({a, b}) != 0;
                                                     });
                             });
            if (next == left.end())
            {
                fail("tree node attributes set in different orders on different paths", fdef);
            }
            order.push_back(*next);
            left.erase(next);
        }
        tree_plan& plan = *m_tree->plan;
        for (const std::string& name : order)
        {
            const size_t i = static_cast<size_t>(std::find_if(attrs.begin(), attrs.end(),
                                                              [&](const tree_knowledge::attr& a)
                                                              { return a.name == name; }) -
                                                 attrs.begin());
            tree_attr_write w;
            w.name = name;
            w.values_output = output_of(new_array(tables[2 * i], surface::ndarray).arr);
            w.tags_output = output_of(new_array(tables[2 * i + 1], surface::ndarray).arr);
            auto view = m_tree->view_src.find(name);
            if (view != m_tree->view_src.end())
            {
                if (m_written_sources.count(view->second.first) != 0)
                {
                    fail("tree node attribute ." + name +
                             " a view of an array the function also writes",
                         fdef);
                }
                w.view_src = view->second.first;
                w.view_rows = view->second.second;
            }
            plan.writes.push_back(w);
        }
        effect_plan e;
        e.k = effect_plan::kind::tree_attrs;
        e.target = m_tree->plan_index;
        m_spec->effects.push_back(e);
    }
} // namespace specula::engine::converter
