// Statements: assignments (locals, attributes, globals, items, arrays in
// place), expression statements (print, method calls with effects), return,
// if on specialised values or as an assert on array data, unrolled for loops,
// assert.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        std::string id_of(py::handle node)
        {
            return py::str(node.attr("id"));
        }

        ir::op aug_op(const std::string& op)
        {
            if (op == "Add")
                return ir::op::ADD;
            if (op == "Sub")
                return ir::op::SUB;
            if (op == "Mult")
                return ir::op::MUL;
            if (op == "Div")
                return ir::op::DIV;
            if (op == "FloorDiv")
                return ir::op::FLOORDIV;
            if (op == "Mod")
                return ir::op::MOD;
            if (op == "Pow")
                return ir::op::POW;
            if (op == "MatMult")
                return ir::op::MATMUL;
            return ir::op::INPUT; // unsupported marker
        }

        bool truth_of(const cval& v, bool& known)
        {
            known = v.k == cval::kind::constant;
            return known && PyObject_IsTrue(v.obj.ptr()) == 1;
        }
    } // namespace

    void converter::visit_body(py::handle statements)
    {
        py::list all = py::reinterpret_borrow<py::list>(statements);
        const size_t n = py::len(all);
        for (size_t i = 0; i < n; ++i)
        {
            py::handle stmt = all[i];
            if (m_returned || m_breaking || m_continuing)
            {
                return;
            }
            if (++m_statements > m_config.max_unrolled_statements)
            {
                fail("too many statements after unrolling", stmt);
            }
            // An `if` on array data whose body returns takes the rest as its else side.
            m_rest = all[py::slice(static_cast<Py_ssize_t>(i + 1), static_cast<Py_ssize_t>(n), 1)];
            visit_stmt(stmt);
        }
    }

    void converter::visit_stmt(py::handle node)
    {
        std::string kind = node_type(node);
        if (kind == "Assign")
            return visit_assign(node);
        if (kind == "AugAssign")
            return visit_aug_assign(node);
        if (kind == "Expr")
            return visit_expr_stmt(node);
        if (kind == "Return")
            return visit_return(node);
        if (kind == "If")
            return visit_if(node);
        if (kind == "For")
            return visit_for(node);
        if (kind == "While")
            return visit_while(node);
        if (kind == "Assert")
            return visit_assert(node);
        if (kind == "Pass")
            return;
        if (kind == "Break")
        {
            m_breaking = true;
            return;
        }
        if (kind == "Continue")
        {
            m_continuing = true;
            return;
        }
        if (kind == "Global")
        {
            for (py::handle name : node.attr("names"))
            {
                m_declared_globals.insert(py::str(name));
            }
            return;
        }
        if (kind == "AnnAssign" && !node.attr("value").is_none())
        {
            return assign_to(node.attr("target"), visit_expr(node.attr("value")));
        }
        std::string what = kind == "Raise" ? "raise on a specialised path" : kind + " statement";
        fail(what, node);
    }

    void converter::visit_assign(py::handle node)
    {
        py::handle rhs = node.attr("value");
        bool unpacking = true;
        for (py::handle target : node.attr("targets"))
        {
            unpacking = unpacking && (node_type(target) == "Tuple" || node_type(target) == "List");
        }
        // `a, b = (f(k) for k in keys)`: the generator is consumed right here.
        cval value = unpacking && node_type(rhs) == "GeneratorExp" ? visit_comprehension(rhs, true)
                                                                   : visit_expr(rhs);
        for (py::handle target : node.attr("targets"))
        {
            assign_to(target, value);
        }
    }

    void converter::assign_to(py::handle target, const cval& value)
    {
        std::string kind = node_type(target);
        if (kind == "Name")
        {
            std::string name = id_of(target);
            if (m_declared_globals.count(name))
            {
                effect_plan e;
                e.k = effect_plan::kind::set_global;
                e.key = py::str(name);
                e.value = plan_of_binding(value, target);
                m_spec->effects.push_back(e);
                m_heap_writes[global_path(name)] = value;
                return;
            }
            m_locals[name] = value;
            return;
        }
        if (kind == "Tuple" || kind == "List")
        {
            py::list elts = target.attr("elts");
            for (py::handle e : elts)
            {
                if (node_type(e) == "Starred")
                {
                    fail("starred assignment target (a, *rest = ...)", e);
                }
            }
            // Python reads every item before binding any target, and raises
            // ValueError on a count mismatch (CPython then runs the call).
            std::vector<cval> items = sequence_items(value, target);
            if (items.size() != py::len(elts))
            {
                fail("unpacking " + std::to_string(items.size()) + " values into " +
                         std::to_string(py::len(elts)) + " targets",
                     target);
            }
            for (size_t i = 0; i < items.size(); ++i)
            {
                assign_to(elts[i], items[i]);
            }
            return;
        }
        if (kind == "Attribute")
        {
            cval obj = visit_expr(target.attr("value"));
            std::string name = py::str(target.attr("attr"));
            if (obj.k == cval::kind::tree)
            {
                return tree_set_attribute(obj, name, value, target); // tree_writes.cpp
            }
            if (obj.k != cval::kind::object || PyModule_Check(obj.obj.ptr()) ||
                Py_TYPE(obj.obj.ptr())->tp_setattro != PyObject_GenericSetAttr ||
                !(Py_TYPE(obj.obj.ptr())->tp_flags & Py_TPFLAGS_HEAPTYPE))
            {
                fail("attribute assignment on this object", target);
            }
            PyObject* in_type = _PyType_Lookup(Py_TYPE(obj.obj.ptr()), py::str(name).ptr());
            if (in_type != nullptr && Py_TYPE(in_type)->tp_descr_set != nullptr)
            {
                fail("assignment to a property/descriptor ." + name, target);
            }
            effect_plan e;
            e.k = effect_plan::kind::set_attr;
            e.target = obj.src;
            e.key = py::str(name);
            e.value = plan_of(value, target);
            m_spec->effects.push_back(e);
            m_setattr_sources.insert(obj.src);
            m_heap_writes[m_spec->sources[obj.src].path + "." + name] = value;
            return;
        }
        if (kind == "Subscript")
        {
            return assign_subscript(target, value);
        }
        fail("assignment to " + kind, target);
    }

    void converter::write_array(int arr, ir::value_id v, py::handle node)
    {
        array_entry& e = m_arrays[static_cast<size_t>(arr)];
        if (e.view_of >= 0)
        {
            fail("in-place update of a view", node);
        }
        if (e.escaped && !e.bound_only)
        {
            fail(e.sealed ? "in-place update of an array bound before an exit on data of the loop"
                          : "in-place update of an array that was already stored or printed",
                 node);
        }
        const ir::value_type& old_t = type_of(e.value);
        const ir::value_type& new_t = type_of(v);
        if (new_t.dims != old_t.dims)
        {
            fail("in-place update that changes the shape", node);
        }
        if (new_t.elem != old_t.elem)
        {
            fail("in-place update with a dtype cast", node);
        }
        e.value = v;
        // Copied out: new_array() below grows m_arrays, which invalidates `e`.
        const int src = e.src;
        refresh_views(arr, node); // its views see the update too
        if (src >= 0)
        {
            const source& written = m_spec->sources[src];
            if (written.kind == source_kind::computed_slice ||
                (written.kind == source_kind::computed_item &&
                 m_array_of_source.count(written.parent) != 0))
            {
                // Its parent array is read too: the guard keeping written
                // arrays apart from read ones would miss on every run.
                fail("in-place update of an array slice or row computed from a loop counter", node);
            }
            // A chunk carries such an item by source (chunk_items.cpp).
            note_chunk_item_write(src);
            // The user's array gets this value at commit, in program order.
            m_written_sources.insert(src);
            cval tmp = new_array(v, surface::ndarray);
            effect_plan eff;
            eff.k = effect_plan::kind::array_write;
            eff.target = src;
            eff.value.k = value_plan::kind::output;
            m_arrays[static_cast<size_t>(tmp.arr)].escaped = true;
            eff.value.index = output_of(tmp.arr);
            m_spec->effects.push_back(eff);
        }
    }

    void converter::assign_subscript(py::handle target, const cval& value)
    {
        cval container = visit_expr(target.attr("value"));
        py::handle index = target.attr("slice");
        if (container.k == cval::kind::array)
        {
            return assign_array_index(container, target, value);
        }
        if (container.k == cval::kind::dict)
        {
            return dict_set(container, visit_expr(index), value, target);
        }
        if (container.k == cval::kind::object &&
            (PyDict_CheckExact(container.obj.ptr()) || PyList_CheckExact(container.obj.ptr())))
        {
            return assign_container_item(container, visit_expr(index), value, target);
        }
        fail("item assignment on this object", target);
    }

    // The result of `target op= value` as NumPy stores it: the ufunc computes
    // in its own result dtype and casts into the target with casting='same_kind'
    // (a 0-d float32 array += 1 computes in float64, since all operands are
    // scalars then; an int8 array += 300 in int16). A cast NumPy refuses raises
    // UFuncTypeError: the call is left to CPython.
    ir::value_id converter::cast_for_in_place(const cval& target, ir::value_id updated,
                                              py::handle node)
    {
        const ir::dtype to = type_of(value_of(target, node)).elem;
        const ir::dtype from = type_of(updated).elem;
        if (from == to)
        {
            return updated;
        }
        py::module_ np = py::module_::import("numpy");
        const bool same_kind =
            np.attr("can_cast")(np.attr("dtype")(std::string(ir::dtype_name(from))),
                                np.attr("dtype")(std::string(ir::dtype_name(to))), "same_kind")
                .cast<bool>();
        if (!same_kind)
        {
            fail("in-place update with a dtype cast NumPy refuses (same_kind)", node);
        }
        const ir::value_id cast = m_builder->cast(updated, to);
        if (cast == ir::no_id)
        {
            fail("in-place update with a dtype cast the IR rejects", node);
        }
        return cast;
    }

    void converter::visit_aug_assign(py::handle node)
    {
        py::handle target = node.attr("target");
        ir::op code = aug_op(node_type(node.attr("op")));
        if (code == ir::op::INPUT)
        {
            fail("augmented assignment " + node_type(node.attr("op")), node);
        }
        cval current = visit_expr(target);
        cval rhs = visit_expr(node.attr("value"));
        cval result = code == ir::op::POW ? power_operator(current, rhs, true, node)
                                          : binary(code, current, rhs, node);
        if (node_type(target) == "Subscript" && current.k == cval::kind::array &&
            m_arrays[static_cast<size_t>(current.arr)].surf == surface::ndarray &&
            visit_expr(target.attr("value")).k == cval::kind::array)
        {
            // x[i] op= v is get, modify in place, set (duplicate indices apply once);
            // the in-place step keeps the item's dtype.
            if (result.k != cval::kind::array ||
                type_of(value_of(result, node)).elem != type_of(value_of(current, node)).elem)
            {
                fail("in-place operator on array items that changes the dtype", node);
            }
            return assign_to(target, result);
        }
        bool in_place = current.k == cval::kind::array &&
                        m_arrays[static_cast<size_t>(current.arr)].surf == surface::ndarray;
        if (!in_place)
        {
            return assign_to(target, result); // immutable values: a rebinding
        }
        if (code == ir::op::MATMUL)
        {
            fail("in-place @=", node);
        }
        // ndarray += ...: NumPy writes into the same object.
        write_array(current.arr, cast_for_in_place(current, value_of(result, node), node), node);
        if (node_type(target) != "Name")
        {
            return; // attribute/item still names the same (updated) array
        }
    }

    // `range(...)` naming the builtin (not a local or a rebound global).
    bool converter::is_range_call(py::handle iter)
    {
        if (node_type(iter) != "Call" || node_type(iter.attr("func")) != "Name" ||
            id_of(iter.attr("func")) != "range" || m_locals.count("range"))
        {
            return false;
        }
        cval fn = read_global("range", iter);
        return fn.k == cval::kind::object && m_whitelist.name_of(fn.obj.ptr()) == "builtins.range";
    }

    void converter::visit_expr_stmt(py::handle node)
    {
        py::handle value = node.attr("value");
        if (node_type(value) == "Call" && node_type(value.attr("func")) == "Name" &&
            id_of(value.attr("func")) == "print" && !m_locals.count("print"))
        {
            cval fn = read_global("print", value);
            if (fn.k == cval::kind::object && m_whitelist.name_of(fn.obj.ptr()) == "builtins.print")
            {
                return visit_print_call(value);
            }
        }
        if (node_type(value) == "Constant")
        {
            return; // docstrings
        }
        // `hs.append(h)` as a statement of its own (code_lists.cpp); an
        // inlined callee's statements set their own.
        PyObject* enclosing = m_statement_call;
        m_statement_call = value.ptr();
        visit_expr(value);
        m_statement_call = enclosing;
    }

    void converter::visit_print(const call_args& args, py::handle node)
    {
        effect_plan e;
        e.k = effect_plan::kind::print;
        for (const cval& a : args.positional)
        {
            e.args.push_back(plan_of(a, node, false));
        }
        e.sep = py::str(" ");
        e.end = py::str("\n");
        for (const auto& [key, v] : args.keywords)
        {
            if ((key != "sep" && key != "end") || v.k != cval::kind::constant)
            {
                fail("print with " + key + "=", node);
            }
            (key == "sep" ? e.sep : e.end) = v.obj;
        }
        m_spec->effects.push_back(e);
    }

    void converter::visit_return(py::handle node)
    {
        py::object value = node.attr("value");
        if (value.is_none())
        {
            m_result = cval{};
            m_result.obj = py::none();
        }
        else
        {
            m_result = visit_expr(value);
        }
        if (m_tree && m_inlined.size() == m_tree->depth)
        {
            tree_return(node); // recursion.cpp: the node's row of the results
        }
        m_returned = true;
    }

    void converter::visit_if(py::handle node)
    {
        py::object rest = std::move(m_rest);
        cval test = cell_exit_test(node);
        bool known = false;
        bool taken = truth_of(test, known);
        if (!known)
        {
            taken = counter_branch(test, known);
        }
        if (known)
        {
            return visit_body(taken ? node.attr("body") : node.attr("orelse"));
        }
        // On array data: `if cond: raise ...` is an assert that cond is false.
        py::list body = node.attr("body");
        bool raise_only = py::len(body) == 1 && node_type(body[0]) == "Raise" &&
                          py::len(node.attr("orelse")) == 0;
        if (test.k != cval::kind::array)
        {
            fail("if on this value (branch not specialisable)", node);
        }
        if (cell_exit(node, test))
        {
            return; // cell_exits.cpp
        }
        if (!raise_only)
        {
            // One side profiled: that side under an assert; else an IR IF.
            if (visit_profiled_if(node, test))
            {
                return;
            }
            return visit_data_if(node, test, rest);
        }
        ir::value_id cond = value_of(test, node);
        if (!type_of(cond).dims.dims().empty())
        {
            fail("truth value of an array", node);
        }
        if (type_of(cond).elem != ir::dtype::bool_)
        {
            fail("if on a non-bool array value", node);
        }
        add_assert(m_builder->unary(ir::op::LOGICAL_NOT, cond), "raise at " + where(body[0]));
    }

    void converter::visit_assert(py::handle node)
    {
        cval test = visit_expr(node.attr("test"));
        bool known = false;
        bool holds = truth_of(test, known);
        if (known)
        {
            if (!holds)
            {
                fail("assert that fails on this call", node);
            }
            return;
        }
        ir::value_id cond = value_of(test, node);
        if (!type_of(cond).dims.dims().empty() || type_of(cond).elem != ir::dtype::bool_)
        {
            fail("assert on a non-bool or non-scalar value", node);
        }
        add_assert(cond, "assert at " + where(node));
    }
} // namespace specula::engine::converter
