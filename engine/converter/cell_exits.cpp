// `if <test on data>: ... break` (or `continue`) in the body of a loop at a
// cell's module level (cell mode) or inside a function (OSR,
// function_loop.cpp, which also checks that no local is rebound after an
// exit), converted as one iteration. The statements after such an `if` are
// computed whatever the test gives (speculation: an assert among them only
// counts while the iteration still runs there), and the commit keeps the
// effects of the path CPython takes: every effect after the `if` carries the
// graph bool "the iteration got here" (effect_plan::when), the `if`'s own
// statements the bool "it took this exit", and the iteration's result is the
// bool "it left the loop". In a cell, names are globals written through the
// write buffer, so an effect skipped is a name left as CPython leaves it.
//
// What an effect committed reads must not change after it: an array bound to
// a name before an exit and updated in place after it, or a list the code
// built and bound before one and appended to after it, would reach Python
// with the other path's contents. Both are refused (located), as are
// in-place updates, dict and list changes inside the `if`'s own statements.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        // `if <test>: ... break` / `... continue` without an else.
        bool exit_shape(py::handle stmt)
        {
            if (node_type(stmt) != "If" || py::len(stmt.attr("orelse")) != 0)
            {
                return false;
            }
            py::list body = stmt.attr("body");
            const std::string last = node_type(body[py::len(body) - 1]);
            return last == "Break" || last == "Continue";
        }

        // The exit `if`s that leave this loop, nested in `if`s only (not in a
        // nested loop, whose `break` is its own, nor in with or try).
        void collect_exits(py::handle statements, std::set<PyObject*>& out)
        {
            for (py::handle stmt : statements)
            {
                const std::string kind = node_type(stmt);
                if (kind == "If")
                {
                    if (exit_shape(stmt))
                    {
                        out.insert(stmt.ptr());
                    }
                    collect_exits(stmt.attr("body"), out);
                    collect_exits(stmt.attr("orelse"), out);
                }
            }
        }
    } // namespace

    void converter::find_cell_exits(py::handle body)
    {
        m_cell_region = m_builder->insertion_region();
        collect_exits(body, m_cell_exits);
    }

    // The test of an `if`: an exit's `and`, `or` and `not` on data combine
    // truths as a while test's do (while_loop.cpp: an operand Python would
    // not evaluate is computed anyway; it can only fail an assert, which
    // sends the iteration to CPython).
    cval converter::cell_exit_test(py::handle node)
    {
        py::handle test = node.attr("test");
        const std::string kind = node_type(test);
        if (m_cell_exits.count(node.ptr()) != 0 && m_inlined.empty() &&
            (kind == "BoolOp" || (kind == "UnaryOp" && node_type(test.attr("op")) == "Not")))
        {
            return loop_test(test);
        }
        return visit_expr(test);
    }

    // Whether `node` (an `if` whose test is on data) is an exit of the cell
    // loop, converted here.
    bool converter::cell_exit(py::handle node, const cval& test)
    {
        if (m_cell_exits.count(node.ptr()) == 0 || !m_inlined.empty() ||
            m_builder->insertion_region() != m_cell_region)
        {
            return false; // inside an IF side or a LOOP: refused there as before
        }
        py::list body = node.attr("body");
        const size_t n = py::len(body);
        const bool is_break = node_type(body[n - 1]) == "Break";
        ir::value_id cond = truth_value(test, node);
        ir::value_id taken =
            m_live == ir::no_id ? cond : m_builder->binary(ir::op::LOGICAL_AND, m_live, cond);
        seal_for_exit();
        m_exit_locals.emplace_back(py::reinterpret_borrow<py::object>(node), m_locals);
        if (n > 1)
        {
            visit_exit_side(body[py::slice(0, static_cast<Py_ssize_t>(n - 1), 1)], taken, node);
        }
        if (is_break)
        {
            m_broke = m_broke == ir::no_id ? taken
                                           : m_builder->binary(ir::op::LOGICAL_OR, m_broke, taken);
        }
        ir::value_id stays = m_builder->unary(ir::op::LOGICAL_NOT, cond);
        m_live =
            m_live == ir::no_id ? stays : m_builder->binary(ir::op::LOGICAL_AND, m_live, stays);
        m_exit_masks.emplace_back(m_spec->effects.size(), m_live);
        return true;
    }

    // The `if`'s statements before its break or continue: their effects
    // committed only when the exit is taken; what they bind is not what the
    // rest of the iteration sees.
    void converter::visit_exit_side(const py::list& statements, ir::value_id taken, py::handle node)
    {
        const std::map<std::string, cval> locals = m_locals;
        const std::map<std::string, cval> heap_writes = m_heap_writes;
        const std::map<int, std::vector<item_write>> item_writes = m_item_writes;
        const std::vector<dict_entry> dicts = m_dicts;
        std::vector<ir::value_id> values;
        for (const array_entry& e : m_arrays)
        {
            values.push_back(e.value);
        }
        std::vector<size_t> list_sizes;
        for (const code_list& l : m_lists)
        {
            list_sizes.push_back(l.items.size());
        }
        const ir::value_id live = m_live;
        m_exit_masks.emplace_back(m_spec->effects.size(), taken);
        m_live = taken;
        visit_body(statements);
        m_live = live;
        if (m_breaking || m_continuing || m_returned)
        {
            fail("break, continue or return before the exit of an if on data", node);
        }
        for (size_t i = 0; i < values.size(); ++i)
        {
            if (m_arrays[i].value != values[i])
            {
                fail("in-place update inside an if that leaves the loop on data", node);
            }
        }
        for (size_t i = 0; i < list_sizes.size(); ++i)
        {
            if (m_lists[i].items.size() != list_sizes[i])
            {
                fail("list.append to a list the code built inside an if that leaves the loop",
                     node);
            }
        }
        m_exit_locals.emplace_back(py::reinterpret_borrow<py::object>(node), m_locals);
        m_locals = locals;
        m_heap_writes = heap_writes;
        m_item_writes = item_writes;
        m_dicts = dicts;
        seal_for_exit();
    }

    // What effects already planned read is fixed from here on.
    void converter::seal_for_exit()
    {
        for (array_entry& e : m_arrays)
        {
            e.sealed = e.sealed || e.bound_only;
            e.bound_only = false; // escaped stays: no in-place update after
        }
        for (code_list& l : m_lists)
        {
            l.sealed = l.sealed || l.planned;
        }
    }

    void converter::finish_cell_exits()
    {
        m_result = exits_taken();
    }

    // Whether the iteration left the loop (a constant, or a graph bool when
    // it may leave on data), and each effect's condition.
    cval converter::exits_taken()
    {
        cval out;
        if (m_broke == ir::no_id && m_exit_masks.empty())
        {
            out.obj = py::bool_(m_breaking);
            return out;
        }
        ir::value_id broke = m_broke;
        if (m_breaking)
        {
            // A break every path that gets here takes.
            broke =
                broke == ir::no_id ? m_live : m_builder->binary(ir::op::LOGICAL_OR, broke, m_live);
        }
        if (broke == ir::no_id)
        {
            out.obj = py::bool_(false);
        }
        else
        {
            out = new_array(broke, surface::py_bool);
        }
        std::map<ir::value_id, int> output;
        for (size_t k = 0; k < m_exit_masks.size(); ++k)
        {
            const auto [from, mask] = m_exit_masks[k];
            const size_t to =
                k + 1 < m_exit_masks.size() ? m_exit_masks[k + 1].first : m_spec->effects.size();
            if (from == to)
            {
                continue;
            }
            if (output.count(mask) == 0)
            {
                cval flag = new_array(mask, surface::py_bool);
                m_arrays[static_cast<size_t>(flag.arr)].escaped = true;
                output[mask] = output_of(flag.arr);
            }
            for (size_t i = from; i < to; ++i)
            {
                m_spec->effects[i].when = output[mask];
            }
        }
        return out;
    }
} // namespace specula::engine::converter
