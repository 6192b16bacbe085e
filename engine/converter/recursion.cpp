// Recursion over a tree of Python objects (JANUS's TreeRNN): a function
// `f(node, *rest)` whose recursive calls are `f(node.<child>, *rest)` is
// converted once, as the body of an IR LOOP over the nodes in post-order.
// The loop carries a table with one row per node: a recursive call on a
// child reads the child's row, a return writes the node's own. At every call
// the runner walks the tree along the same child attributes
// (engine/tree_inputs.*), checks every node and feeds the node data the body
// reads as int64/bool tables, so trees of every shape share one graph.
// Every node runs the same NumPy calls CPython would, one node at a time, so
// the results are NumPy's bits.
#include "engine/converter/converter.hpp"

#include <algorithm>

namespace specula::engine::converter
{
    namespace
    {
        py::object ast_walk(py::handle fdef)
        {
            return py::module_::import("ast").attr("walk")(fdef);
        }

        bool calls_name(py::handle node, const std::string& name)
        {
            return node_type(node) == "Call" && node_type(node.attr("func")) == "Name" &&
                   std::string(py::str(node.attr("func").attr("id"))) == name;
        }

        // Whether a `return <value>` occurs in the function (else every
        // call returns None).
        bool returns_value(py::handle fdef)
        {
            for (py::handle n : ast_walk(fdef))
            {
                if (node_type(n) == "Return" && !n.attr("value").is_none())
                {
                    return true;
                }
            }
            return false;
        }

        bool is_name(py::handle node, const std::string& name)
        {
            return node_type(node) == "Name" && std::string(py::str(node.attr("id"))) == name;
        }
    } // namespace

    bool converter::calls_itself(py::handle fdef) const
    {
        const std::string name = py::str(fdef.attr("name"));
        for (py::handle n : ast_walk(fdef))
        {
            if (calls_name(n, name))
            {
                return true;
            }
        }
        return false;
    }

    // The recursion the loop can express: every recursive call passes a
    // child attribute of the node and the other parameters unchanged, and no
    // parameter is rebound (so every call sees the root call's values).
    void converter::check_recursive_calls(py::handle fdef, std::vector<std::string>& children)
    {
        const std::string name = py::str(fdef.attr("name"));
        std::vector<std::string> params;
        for (py::handle a : fdef.attr("args").attr("args"))
        {
            params.push_back(py::str(a.attr("arg")));
        }
        for (py::handle n : ast_walk(fdef))
        {
            if (node_type(n) == "Name" && node_type(n.attr("ctx")) != "Load" &&
                std::find(params.begin(), params.end(), std::string(py::str(n.attr("id")))) !=
                    params.end())
            {
                fail("parameter " + std::string(py::str(n.attr("id"))) +
                         " rebound in a recursive function",
                     n);
            }
            if (!calls_name(n, name))
            {
                continue;
            }
            py::list args = n.attr("args");
            bool plain = py::len(n.attr("keywords")) == 0 && py::len(args) == params.size() &&
                         node_type(args[0]) == "Attribute" &&
                         is_name(args[0].attr("value"), params[0]);
            for (size_t i = 1; plain && i < params.size(); ++i)
            {
                plain = is_name(args[i], params[i]);
            }
            if (!plain)
            {
                fail("recursive call of " + name + " with other arguments than (" + params[0] +
                         ".<child>, the other parameters unchanged)",
                     n);
            }
            std::string child = py::str(args[0].attr("attr"));
            if (std::find(children.begin(), children.end(), child) == children.end())
            {
                children.push_back(child);
            }
        }
    }

    const tree_knowledge::attr* tree_knowledge::find(const std::string& name) const
    {
        for (const attr& a : attrs)
        {
            if (a.name == name)
            {
                return &a;
            }
        }
        return nullptr;
    }

    cval converter::tree_node_at(ir::value_id index)
    {
        cval n = new_array(index, surface::py_int);
        m_arrays[static_cast<size_t>(n.arr)].int_lo = 0;
        m_arrays[static_cast<size_t>(n.arr)].int_hi = relaxed_int_hi;
        n.k = cval::kind::tree;
        return n;
    }

    ir::value_id converter::tree_index(const cval& n, py::handle)
    {
        return m_arrays[static_cast<size_t>(n.arr)].value;
    }

    // `node.<child>`: the child node (asserted present: CPython would fail on
    // None); `node.<field>`: an int from the node's __dict__, as a Python int.
    cval converter::tree_attribute(const cval& n, const std::string& name, py::handle node)
    {
        cval written;
        if (tree_written_attribute(n, name, node, written)) // tree_writes.cpp
        {
            return written;
        }
        const ir::value_id index = tree_index(n, node);
        const auto& children = m_tree->plan->children;
        if (std::find(children.begin(), children.end(), name) != children.end())
        {
            ir::value_id child = tree_gather(tree_table::kind::child, name, index);
            if (index != m_tree->node || !tree_asserted("child " + name))
            {
                add_assert(m_builder->binary(ir::op::GE, child, tree_int(0)),
                           "tree node attribute ." + name + " is None at " + where(node));
            }
            return tree_node_at(child);
        }
        ir::value_id none = tree_gather(tree_table::kind::is_none, name, index);
        if (index != m_tree->node || !tree_asserted("field " + name))
        {
            add_assert(m_builder->unary(ir::op::LOGICAL_NOT, none),
                       "tree node attribute ." + name + " is None at " + where(node));
        }
        cval v = new_array(tree_gather(tree_table::kind::int_value, name, index), surface::py_int);
        m_arrays[static_cast<size_t>(v.arr)].int_lo = relaxed_int_lo;
        m_arrays[static_cast<size_t>(v.arr)].int_hi = relaxed_int_hi;
        return v;
    }

    // `x.<field> is None` / `is not None` where x is a tree node: the node
    // data say (no value is read, so None is no failure here).
    bool converter::tree_none_test(py::handle compare, cval& out)
    {
        py::list ops = compare.attr("ops");
        py::handle left = compare.attr("left");
        if (py::len(ops) != 1 || node_type(left) != "Attribute" ||
            node_type(left.attr("value")) != "Name")
        {
            return false;
        }
        const std::string op = node_type(ops[0]);
        py::handle right = py::list(compare.attr("comparators"))[0];
        if ((op != "Is" && op != "IsNot") || node_type(right) != "Constant" ||
            !right.attr("value").is_none())
        {
            return false;
        }
        auto local = m_locals.find(py::str(left.attr("value").attr("id")));
        if (local == m_locals.end() || local->second.k != cval::kind::tree)
        {
            return false;
        }
        const std::string field = py::str(left.attr("attr"));
        const ir::value_id index = tree_index(local->second, compare);
        ir::value_id none = tree_gather(tree_table::kind::is_none, field, index);
        if (op == "IsNot")
        {
            none = m_builder->unary(ir::op::LOGICAL_NOT, none);
        }
        out = new_array(none, surface::py_bool);
        return true;
    }

    // `node.method(...)`: the method the node class holds, guarded through
    // the root's class (every node has that class: the walk checks it, and
    // that no node's __dict__ shadows the method).
    cval converter::tree_method(const cval& self, const std::string& name, py::handle node)
    {
        const tree_plan& plan = *m_tree->plan;
        auto* type = reinterpret_cast<PyTypeObject*>(plan.node_class.ptr());
        PyObject* fn = _PyType_Lookup(type, py::str(name).ptr());
        if (fn == nullptr || !PyFunction_Check(fn))
        {
            fail("call of ." + name + " on a tree node (not a plain method)", node);
        }
        const std::string path = m_spec->sources[plan.root_src].path + "." + name + "@class";
        int src = m_spec->sources.add(
            source{source_kind::class_attr, plan.root_src, 0, py::str(name), path});
        owned_refs owned;
        std::vector<PyObject*> values(static_cast<size_t>(m_spec->sources.size()), nullptr);
        values[static_cast<size_t>(plan.root_src)] = m_tree->root_obj;
        PyObject* found = m_spec->sources.resolve(src, m_frame, values, owned);
        if (found == nullptr)
        {
            fail("method ." + name + " shadowed by the root node's instance attribute", node);
        }
        auto& names = m_tree->plan->class_names;
        if (std::find(names.begin(), names.end(), name) == names.end())
        {
            names.push_back(name);
        }
        return call_python(read_source(src, found), visit_args(node), node, &self);
    }

    // `f(node.child, *rest)`: the child's row of the loop's result table.
    cval converter::tree_call(const cval& fn, const call_args& args, py::handle node)
    {
        if (args.positional.empty() || args.positional[0].k != cval::kind::tree)
        {
            fail("recursive call on something other than a child of the node", node);
        }
        cval code = raw_attribute(fn, "__code__", true, node);
        if (code.obj.ptr() != reinterpret_cast<PyObject*>(m_tree->code))
        {
            fail("recursive call of another function of the same name", node);
        }
        if (m_tree->known.returns_none)
        {
            cval none;
            none.obj = py::none();
            return none;
        }
        if (!m_tree->known.row_known)
        {
            fail("recursive call before a base case returned (the base case must come first)",
                 node);
        }
        const ir::value_id child = tree_index(args.positional[0], node);
        cval r = new_array(m_builder->gather(m_tree->results, child, 0), surface::ndarray);
        // CPython returns the child's object itself: an in-place update of it
        // could write through to whatever that is.
        m_arrays[static_cast<size_t>(r.arr)].escaped = true;
        m_tree->alias_of[r.arr] = m_builder->gather(m_tree->aliases, child, 0);
        return r;
    }

    // A return of the recursive function itself: m_result becomes the
    // node's outcome, a tuple (its row, whether that is a view or an input
    // array: only the root's result reaches Python, and there identity
    // matters), then the attributes set on the node (tree_outcome()).
    void converter::tree_return(py::handle node)
    {
        const cval v = m_result;
        std::vector<cval> items;
        if (m_tree->known.returns_none)
        {
            tree_outcome(items);
            m_result.k = cval::kind::tuple;
            m_result.obj = py::object();
            m_result.items = items;
            return;
        }
        if (v.k != cval::kind::array ||
            m_arrays[static_cast<size_t>(v.arr)].surf != surface::ndarray)
        {
            fail("recursive function over a tree returning something other than an array", node);
        }
        const array_entry e = m_arrays[static_cast<size_t>(v.arr)];
        if (e.escaped && m_tree->alias_of.count(v.arr) == 0)
        {
            fail("recursive function over a tree returning an array it also stored on a node",
                 node);
        }
        const ir::value_type t = type_of(e.value);
        tree_knowledge& known = m_tree->known;
        if (known.row_known && t != known.row)
        {
            fail("recursive function returning " + t.to_string() + " and " + known.row.to_string(),
                 node);
        }
        if (!known.row_known)
        {
            if (!m_tree->probing)
            {
                fail("recursive function whose base case returns no array", node);
            }
            tree_learned learned{known};
            learned.known.row = t;
            learned.known.row_known = true;
            throw learned;
        }
        auto found = m_tree->alias_of.find(v.arr);
        ir::value_id flag =
            found != m_tree->alias_of.end()
                ? found->second
                : m_builder->constant(ir::scalar::of_bool(e.src >= 0 || e.view_of >= 0));
        items = {new_array(flag, surface::ndarray), new_array(e.value, surface::ndarray)};
        tree_outcome(items);
        m_result = cval{};
        m_result.k = cval::kind::tuple;
        m_result.items = items;
    }

    void converter::convert_recursion(py::handle fdef)
    {
        PyCodeObject* code = m_frame.code;
        if (code->co_kwonlyargcount != 0 || code->co_posonlyargcount != 0 || code->co_argcount < 1)
        {
            fail("recursive function with keyword-only or positional-only parameters", fdef);
        }
        if (!m_tree)
        {
            m_tree = std::make_unique<tree_state>();
        }
        m_tree->code = code;
        const std::string node_param = arg_path(code, 0);
        cval root;
        root.k = cval::kind::object;
        root.obj = py::reinterpret_borrow<py::object>(m_frame.locals[0]);
        root.src = m_spec->sources.add(source{source_kind::arg, -1, 0, py::none(), node_param});
        for (int i = 1; i < code->co_argcount; ++i)
        {
            source s{source_kind::arg, -1, i, py::none(), arg_path(code, i)};
            m_locals[s.path] = read_source(m_spec->sources.add(s), m_frame.locals[i]);
        }
        m_result = build_recursion(fdef, code, root, node_param);
        m_returned = true;
        finish_graph();
    }

    cval converter::build_recursion(py::handle fdef, PyCodeObject* code, const cval& root,
                                    const std::string& node_param)
    {
        m_tree->code = code;
        m_tree->plan = std::make_shared<tree_plan>();
        tree_plan& plan = *m_tree->plan;
        check_recursive_calls(fdef, plan.children);
        m_tree->plan_index = static_cast<int>(m_spec->trees.size());
        m_spec->trees.push_back(m_tree->plan);
        PyObject* root_obj = root.obj.ptr();
        PyTypeObject* type = Py_TYPE(root_obj);
        plan.root_src = root.src;
        m_tree->root_obj = root_obj;
        m_spec->guards.add(make_type_guard(plan.root_src, type, m_spec->sources[root.src].path));
        if (type->tp_getattro != PyObject_GenericGetAttr ||
            !(type->tp_flags & Py_TPFLAGS_HEAPTYPE) || _PyObject_GetDictPtr(root_obj) == nullptr)
        {
            fail("recursion over a " + std::string(type->tp_name) +
                     " object (tree nodes must be instances of a plain class)",
                 fdef);
        }
        plan.node_class = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(type));
        const bool probing = m_tree->probing;
        if (!probing && !m_tree->learned)
        {
            m_tree->known.returns_none = !returns_value(fdef);
            learn_tree_types(fdef);
        }
        const tree_knowledge& known = m_tree->known;
        m_tree->count = m_builder->input({ir::dtype::int64, ir::shape{}}, "tree.nodes");
        graph_input count_input;
        count_input.tree = m_tree->plan_index;
        count_input.tree_count = true;
        m_spec->inputs.push_back(count_input);
        m_tree->symbol = p_graph->new_symbol();
        if (m_tree->symbol >= max_symbols)
        {
            fail("too many symbolic dims", fdef);
        }
        const ir::dim n = ir::dim::symbol(m_tree->symbol);
        auto table_type = [&n](const ir::value_type& row)
        {
            std::vector<ir::dim> dims{n};
            for (const ir::dim& d : row.dims.dims())
            {
                dims.push_back(d);
            }
            return ir::value_type{row.elem, ir::shape(dims)};
        };
        // Loop args: the node index, then the carried tables: (aliases,
        // results) when calls return arrays, (values, tags) per attribute.
        std::vector<ir::value_type> carried;
        std::vector<ir::value_type> rows; // the row type of each carried table
        const bool with_results = !known.returns_none && known.row_known;
        if (with_results)
        {
            if (!known.row.dims.static_sizes())
            {
                fail("recursive function returning arrays of a varying shape", fdef);
            }
            rows.push_back({ir::dtype::bool_, ir::shape{}});
            rows.push_back(known.row);
        }
        for (const tree_knowledge::attr& a : known.attrs)
        {
            rows.push_back(a.type);
            rows.push_back({ir::dtype::int64, ir::shape{}});
        }
        std::vector<ir::value_type> arg_types{{ir::dtype::int64, ir::shape{}}};
        for (const ir::value_type& r : rows)
        {
            arg_types.push_back(table_type(r));
        }
        ir::region_id body = m_builder->new_region(arg_types);
        {
            ir::builder::insertion_guard keep(*m_builder);
            m_builder->set_insertion_end(body);
            const ir::value_id index = m_builder->arg(body, 0);
            m_tree->node = index;
            m_tree->body = body;
            int next = 1;
            if (with_results)
            {
                m_tree->aliases = m_builder->arg(body, next++);
                m_tree->results = m_builder->arg(body, next++);
            }
            for (const tree_knowledge::attr& a : known.attrs)
            {
                const ir::value_id values = m_builder->arg(body, next++);
                m_tree->attr_tables[a.name] = {values, m_builder->arg(body, next++)};
            }
            m_locals[node_param] = tree_node_at(index);
            tree_init_attrs();
            const outer_snapshot outer = snapshot_outer();
            visit_body(fdef.attr("body"));
            if (!m_returned)
            {
                if (!known.returns_none)
                {
                    fail("recursive function over a tree that does not return an array on every "
                         "path",
                         fdef);
                }
                m_result = cval{};
                m_result.obj = py::none();
                tree_return(fdef);
            }
            if (m_result.k != cval::kind::tuple || m_result.items.size() != rows.size())
            {
                fail("recursive function over a tree with an outcome the loop cannot carry", fdef);
            }
            if (probing)
            {
                throw tree_probe_done{m_tree->maybe_unset}; // nothing more to learn
            }
            if (outer_changed(outer))
            {
                fail("effects other than node attribute writes in a recursive function over a "
                     "tree (not converted yet)",
                     fdef);
            }
            if (rows.empty())
            {
                fail("recursive function over a tree without results or node attribute writes",
                     fdef);
            }
            std::vector<ir::value_id> results;
            for (size_t i = 0; i < rows.size(); ++i)
            {
                results.push_back(
                    m_builder->gather_update(m_builder->arg(body, static_cast<int>(i) + 1), index,
                                             value_of(m_result.items[i], fdef), 0));
            }
            m_builder->set_results(body, results);
        }
        // Initial tables shaped from a node table (creation ops take static
        // shapes only). Results are written before they are read (post-order);
        // attribute tags start as "not written".
        const ir::value_id first =
            tree_table_value(tree_table::kind::child, m_tree->plan->children[0]);
        std::vector<ir::value_id> init;
        for (size_t i = 0; i < rows.size(); ++i)
        {
            const ir::value_type& r = rows[i];
            ir::value_id base = m_builder->cast(first, r.elem);
            std::vector<int> row_axes;
            for (int a = 0; a < r.dims.rank(); ++a)
            {
                row_axes.push_back(a + 1);
            }
            if (!row_axes.empty())
            {
                base = m_builder->expand_dims(base, row_axes);
            }
            if (r.elem == ir::dtype::bool_)
            {
                init.push_back(m_builder->binary(ir::op::NE, first, first));
                continue;
            }
            const size_t attr_row = with_results ? i - 2 : i;
            if ((!with_results || i >= 2) && attr_row % 2 == 1)
            {
                auto i64 = [this](std::int64_t v)
                { return m_builder->constant(ir::scalar::of_int(ir::dtype::int64, v)); };
                init.push_back(m_builder->binary(ir::op::ADD,
                                                 m_builder->binary(ir::op::MUL, first, i64(0)),
                                                 i64(tree_attr_write::tag_unwritten)));
                continue;
            }
            init.push_back(m_builder->binary(ir::op::ADD, base, m_builder->zeros(r.dims, r.elem)));
        }
        std::vector<ir::value_id> out =
            m_builder->loop(ir::loop_attr{true, false}, m_tree->count, ir::no_id, init, body);
        if (out.size() != rows.size())
        {
            fail("IR rejected the recursion's loop (" + m_builder->state().message() + ")", fdef);
        }
        tree_drop_implied_asserts(body, {});
        tree_hoist_child_checks(body);
        // The root is the last node in post-order.
        // (Computed only where something reads the root's row.)
        const ir::value_id root_index =
            with_results || m_tree->site >= 0
                ? m_builder->binary(ir::op::SUB, m_tree->count,
                                    m_builder->constant(ir::scalar::of_int(ir::dtype::int64, 1)))
                : ir::no_id;
        cval result;
        result.obj = py::none();
        if (with_results)
        {
            add_assert(
                m_builder->unary(ir::op::LOGICAL_NOT, m_builder->gather(out[0], root_index, 0)),
                "the root's result is a view or an input array (CPython returns that object)");
            result = new_array(m_builder->gather(out[1], root_index, 0), surface::ndarray);
        }
        const size_t first_attr = with_results ? 2 : 0;
        tree_commit_plan(std::vector<ir::value_id>(out.begin() + first_attr, out.end()), fdef);
        tree_site& info = m_tree->info;
        info.root_src = plan.root_src;
        info.plan = m_tree->plan;
        info.node_class = plan.node_class;
        info.root_index = root_index;
        info.reads = plan.children;
        info.reads.insert(info.reads.end(), plan.class_names.begin(), plan.class_names.end());
        for (const tree_table& t : plan.tables)
        {
            info.reads.push_back(t.field);
        }
        for (size_t i = 0; i < known.attrs.size(); ++i)
        {
            const std::string& name = known.attrs[i].name;
            info.writes.push_back({name, out[first_attr + 2 * i], out[first_attr + 2 * i + 1],
                                   known.always_set.count(name) != 0});
        }
        return result;
    }
} // namespace specula::engine::converter
