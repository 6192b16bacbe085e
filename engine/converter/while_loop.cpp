// `while <test>:` whose trip count only the data decides (a test on array
// data or on relaxed Python values) as one IR LOOP with a condition: the
// test is evaluated before the first trip and at the end of every trip, as
// CPython does, so any number of trips runs in one graph and a trip count
// that changes between calls needs no recompilation.
//
// The loop carries the locals its body rebinds that exist before it (arrays,
// NumPy scalars, Python floats, bools and ints) and arrays updated in place
// through such a name (loop_carried_names.cpp). A Python int is carried in [-2**31, 2**31): a trip
// that leaves that range fails an assert and CPython runs the call (ints
// never wrap). `break` and `continue` under specialised conditions are
// resolved at conversion; `if <array test>: break` / `continue` directly in
// the body makes the rest of the trip an IR IF and, for break, a flag the
// loop's next condition reads. Refused (located): effects in the body (they
// would need per-trip stacking), return, a local whose type changes from one
// trip to the next, and locals first bound in the body read by the test or
// after the loop. An endless loop stays interruptible: the executor polls
// Python's signals once per trip (backends/interrupt.hpp).
#include "engine/converter/converter.hpp"
#include "engine/converter/loop_scan.hpp"

namespace specula::engine::converter
{
    namespace
    {
        // `if <test>: break` or `if <test>: continue` (no else): whether the
        // statement is one, and which.
        bool exit_if(py::handle stmt, bool& is_break)
        {
            if (node_type(stmt) != "If" || py::len(stmt.attr("orelse")) != 0 ||
                py::len(stmt.attr("body")) != 1)
            {
                return false;
            }
            const std::string kind = node_type(py::list(stmt.attr("body"))[0]);
            is_break = kind == "Break";
            return is_break || kind == "Continue";
        }

        py::list tail(const py::list& all, size_t from)
        {
            return all[py::slice(static_cast<Py_ssize_t>(from),
                                 static_cast<Py_ssize_t>(py::len(all)), 1)];
        }
    } // namespace

    // Whether a `while` whose test is on data becomes an IR LOOP: when the
    // profile does not give one trip count to unroll (none seen, several
    // seen, or it changed after compilation), or unrolling it would copy
    // more than a quarter of the statement budget.
    bool converter::wants_while_loop(py::handle node) const
    {
        if (!m_whole_function || m_tree)
        {
            return false;
        }
        const branch_observation* seen = profiled_branch(node);
        if (seen == nullptr || seen->flipped || !seen->constant_trips())
        {
            return true;
        }
        std::set<std::string> names;
        int size = 0;
        bound_names(node.attr("body"), names, size);
        return static_cast<std::int64_t>(seen->trips_max) * std::max(size, 1) >
               m_config.max_unrolled_statements / 4;
    }

    // Whether the body of a `while` whose test is known to hold has an
    // `if <test>: break` (or continue) at its top level whose test is on data (evaluated
    // here, as the first trip would): unrolling cannot follow it, the IR
    // loop can.
    bool converter::exits_on_data(py::handle node)
    {
        std::set<std::string> bound_before;
        int size = 0;
        for (py::handle stmt : node.attr("body"))
        {
            bool is_break = false;
            if (exit_if(stmt, is_break))
            {
                bool reads_bound = false;
                walk_scope(stmt.attr("test"),
                           [&](py::handle n)
                           {
                               reads_bound =
                                   reads_bound || (node_type(n) == "Name" &&
                                                   bound_before.count(py::str(n.attr("id"))));
                           });
                // A test on what the trip computes first is taken as data.
                if (reads_bound || loop_test(stmt.attr("test")).k == cval::kind::array)
                {
                    return true;
                }
            }
            py::list one;
            one.append(stmt);
            bound_names(one, bound_before, size);
        }
        return false;
    }

    // Whether a test that holds before the first trip reads data after one
    // (`err = 1.0` before the loop, `err = float(...)` in it): one trip is
    // converted into the then side of an IF that never runs and thrown away
    // with everything it changed.
    bool converter::test_turns_data(py::handle node)
    {
        std::set<std::string> bound;
        int size = 0;
        bound_names(node.attr("body"), bound, size);
        bool reads_bound = false;
        walk_scope(node.attr("test"),
                   [&](py::handle n) {
                       reads_bound = reads_bound ||
                                     (node_type(n) == "Name" && bound.count(py::str(n.attr("id"))));
                   });
        if (!reads_bound)
        {
            return false;
        }
        const auto locals = m_locals;
        const auto arrays = m_arrays;
        const auto dicts = m_dicts;
        const auto lists = m_lists;
        const auto heap_writes = m_heap_writes;
        const auto written = m_written_sources;
        const auto setattr = m_setattr_sources;
        const auto output_of = m_output_of_array;
        const size_t effects = m_spec->effects.size();
        const size_t outputs = m_spec->outputs.size();
        const int statements = m_statements;
        bool data = false;
        ir::region_id probe = m_builder->new_region();
        {
            ir::builder::insertion_guard keep(*m_builder);
            m_builder->set_insertion_end(probe);
            visit_body(node.attr("body"));
            if (!m_returned && !m_breaking)
            {
                data = loop_test(node.attr("test")).k == cval::kind::array;
            }
            m_builder->set_results(probe, {});
        }
        ir::region_id nothing = m_builder->new_region();
        m_builder->set_results(nothing, {});
        m_builder->if_else(m_builder->constant(ir::scalar::of_bool(false)), probe, nothing);
        m_returned = m_breaking = m_continuing = false;
        m_locals = locals;
        m_arrays = arrays;
        m_dicts = dicts;
        m_lists = lists;
        m_heap_writes = heap_writes;
        m_written_sources = written;
        m_setattr_sources = setattr;
        m_output_of_array = output_of;
        m_spec->effects.resize(effects);
        m_spec->outputs.resize(outputs);
        m_statements = statements;
        return data;
    }

    // A loop test's truth: a constant, or a bool value (py_bool). `and`,
    // `or` and `not` combine truths; Python would return an operand, but a
    // test only reads its truth. A right operand Python would not evaluate
    // is evaluated anyway: it can only fail an assert (IndexError...) or
    // raise a flag NumPy reports, and CPython then runs the call.
    cval converter::loop_test(py::handle test)
    {
        const std::string kind = node_type(test);
        if (kind == "UnaryOp" && node_type(test.attr("op")) == "Not")
        {
            cval v = loop_test(test.attr("operand"));
            if (v.k == cval::kind::constant)
            {
                cval out;
                out.obj = py::bool_(PyObject_IsTrue(v.obj.ptr()) != 1);
                return out;
            }
            return new_array(m_builder->unary(ir::op::LOGICAL_NOT, value_of(v, test)),
                             surface::py_bool);
        }
        if (kind == "BoolOp")
        {
            const bool is_and = node_type(test.attr("op")) == "And";
            ir::value_id acc = ir::no_id;
            for (py::handle operand : test.attr("values"))
            {
                cval v = loop_test(operand);
                if (v.k == cval::kind::constant)
                {
                    if ((PyObject_IsTrue(v.obj.ptr()) == 1) != is_and)
                    {
                        cval out; // decides the whole test, whatever the others give
                        out.obj = py::bool_(!is_and);
                        return out;
                    }
                    continue;
                }
                ir::value_id t = value_of(v, operand);
                acc = acc == ir::no_id
                          ? t
                          : m_builder->binary(is_and ? ir::op::LOGICAL_AND : ir::op::LOGICAL_OR,
                                              acc, t);
            }
            if (acc == ir::no_id)
            {
                cval out;
                out.obj = py::bool_(is_and);
                return out;
            }
            return new_array(acc, surface::py_bool);
        }
        cval v = visit_expr(test);
        if (v.k == cval::kind::constant)
        {
            return v;
        }
        if (v.k != cval::kind::array)
        {
            fail("loop test on this value", test);
        }
        return new_array(truth_value(v, test), surface::py_bool);
    }

    // Whether an array from before a loop is one whose identity Python can
    // see (an input, a view, stored, or named by another local): a loop
    // that may leave the name on it or on a new array is then refused or
    // asserted.
    bool converter::identity_visible(int arr, const std::string& name) const
    {
        const array_entry& e = m_arrays[static_cast<size_t>(arr)];
        if (e.src >= 0 || e.view_of >= 0 || e.escaped)
        {
            return true;
        }
        for (const auto& [other, v] : m_locals)
        {
            if (other != name && v.k == cval::kind::array && v.arr == arr)
            {
                return true;
            }
        }
        return false;
    }

    // One trip's statements; returns the flag "the trip took a break" (a
    // bool value), or no_id when it cannot.
    ir::value_id converter::while_trip(const py::list& statements, carried_loop& loop,
                                       py::handle node)
    {
        const size_t n = py::len(statements);
        for (size_t i = 0; i < n; ++i)
        {
            py::handle stmt = statements[i];
            if (++m_statements > m_config.max_unrolled_statements)
            {
                fail("too many statements after unrolling", stmt);
            }
            bool is_break = false;
            if (exit_if(stmt, is_break))
            {
                cval test = loop_test(stmt.attr("test"));
                if (test.k == cval::kind::array)
                {
                    return while_exit(test, is_break, tail(statements, i + 1), loop, stmt, node);
                }
            }
            m_rest = tail(statements, i + 1);
            visit_stmt(stmt);
            if (m_returned)
            {
                fail("return inside " + loop.what, stmt);
            }
            if (m_breaking || m_continuing)
            {
                const bool broke = m_breaking;
                m_breaking = m_continuing = false;
                return broke ? m_builder->constant(ir::scalar::of_bool(true)) : ir::no_id;
            }
        }
        return ir::no_id;
    }

    // `if <test>: break` / `continue` on array data inside a trip: the rest
    // of the trip becomes the else side of an IR IF whose results are the
    // carried locals and the break flag.
    ir::value_id converter::while_exit(const cval& test, bool is_break, const py::list& rest,
                                       carried_loop& loop, py::handle stmt, py::handle node)
    {
        std::vector<carried_slot>& slots = loop.slots;
        ir::value_id cond = value_of(test, stmt);
        const std::map<std::string, cval> here = m_locals;
        std::vector<ir::value_id> then_results, else_results;
        std::vector<std::int64_t> lo(slots.size()), hi(slots.size());
        std::vector<bool> kept(slots.size()); // the name still names the slot's own entry
        for (size_t k = 0; k < slots.size(); ++k)
        {
            std::int64_t l = 0, h = 0;
            then_results.push_back(slot_value(loop, slots[k], stmt, l, h));
            lo[k] = l;
            hi[k] = h;
            const cval& v = m_locals.at(slots[k].name);
            kept[k] = v.k == cval::kind::array && v.arr == slots[k].fresh;
        }
        ir::region_id then_region = m_builder->new_region();
        ir::region_id else_region = m_builder->new_region();
        {
            ir::builder::insertion_guard keep(*m_builder);
            m_builder->set_insertion_end(then_region);
            then_results.push_back(m_builder->constant(ir::scalar::of_bool(is_break)));
        }
        {
            ir::builder::insertion_guard keep(*m_builder);
            m_builder->set_insertion_end(else_region);
            ir::value_id broke = while_trip(rest, loop, node);
            for (size_t k = 0; k < slots.size(); ++k)
            {
                std::int64_t l = 0, h = 0;
                else_results.push_back(slot_value(loop, slots[k], stmt, l, h));
                lo[k] = std::min(lo[k], l);
                hi[k] = std::max(hi[k], h);
                const cval& v = m_locals.at(slots[k].name);
                const bool still = v.k == cval::kind::array && v.arr == slots[k].fresh;
                if (still != kept[k] && slots[k].surf == surface::ndarray && slots[k].orig >= 0 &&
                    identity_visible(slots[k].orig, slots[k].name))
                {
                    // On the first trip the name would keep or leave the
                    // caller's object depending on the path.
                    fail("array " + slots[k].name + " rebound on one path of a while trip only",
                         stmt);
                }
                kept[k] = kept[k] && still;
            }
            else_results.push_back(
                broke == ir::no_id ? m_builder->constant(ir::scalar::of_bool(false)) : broke);
        }
        m_builder->set_results(then_region, then_results);
        m_builder->set_results(else_region, else_results);
        std::vector<ir::value_id> outs = m_builder->if_else(cond, then_region, else_region);
        if (!m_builder->ok() || outs.size() != slots.size() + 1)
        {
            fail("break or continue in a while loop (IR: " + m_builder->state().message() + ")",
                 stmt);
        }
        m_locals = here;
        for (size_t k = 0; k < slots.size(); ++k)
        {
            if (kept[k])
            {
                m_arrays[static_cast<size_t>(slots[k].fresh)].value = outs[k];
                refresh_views(slots[k].fresh, stmt); // views made on one side
                continue;
            }
            cval v = new_array(outs[k], slots[k].surf);
            m_arrays[static_cast<size_t>(v.arr)].int_lo = lo[k];
            m_arrays[static_cast<size_t>(v.arr)].int_hi = hi[k];
            m_locals[slots[k].name] = v;
        }
        return outs.back();
    }

    // The loop itself: `first` is the test's truth before the first trip.
    void converter::build_while_loop(py::handle node, const cval& first)
    {
        std::set<std::string> bound;
        int size = 0;
        bound_names(node.attr("body"), bound, size);
        carried_loop loop;
        loop.what = "a while loop converted as an IR loop";
        loop.python_ints = true;
        std::set<std::string> loop_only;
        carried_names(loop, bound, "", loop_only, node);
        check_loop_locals_unread(node, loop_only);
        walk_scope(node.attr("test"),
                   [&](py::handle n)
                   {
                       if (node_type(n) == "Name" && loop_only.count(py::str(n.attr("id"))))
                       {
                           fail("while test reading a local first bound in its body", node);
                       }
                   });

        ir::value_id cond0 =
            first.k == cval::kind::constant
                ? m_builder->constant(ir::scalar::of_bool(PyObject_IsTrue(first.obj.ptr()) == 1))
                : value_of(first, node);
        const std::map<std::string, cval> before = m_locals;
        std::vector<ir::value_id> init;
        ir::region_id body = open_carried_loop(loop, init);
        {
            ir::builder::insertion_guard keep(*m_builder);
            m_builder->set_insertion_end(body);
            bind_carried_args(loop, body);
            ir::value_id broke = while_trip(node.attr("body"), loop, node);
            check_carried_trip(loop, node);
            std::vector<ir::value_id> results;
            for (carried_slot& s : loop.slots)
            {
                results.push_back(carried_result(loop, s, node));
            }
            results.insert(results.begin(), next_test(node, broke));
            m_builder->set_results(body, results);
        }
        std::vector<ir::value_id> outs =
            m_builder->loop(ir::loop_attr{false, true}, ir::no_id, cond0, init, body);
        if (!m_builder->ok() || outs.size() != loop.slots.size())
        {
            fail("while as a loop (IR: " + m_builder->state().message() + ")", node);
        }
        for (const carried_slot& s : loop.slots)
        {
            if (s.surf == surface::ndarray && s.orig >= 0 && !s.in_place && !s.shares_object &&
                identity_visible(s.orig, s.name))
            {
                // Without a trip the name keeps naming its object, not the
                // loop's output.
                add_assert(cond0, "while at " + where(node) + " ran no trip");
                break;
            }
        }
        m_locals = before;
        close_carried_loop(loop, outs, node);
    }

    // The loop's next condition: the test on the trip's final values, or
    // false when the trip took a break (the test then is not evaluated).
    ir::value_id converter::next_test(py::handle node, ir::value_id broke)
    {
        auto test_value = [&]
        {
            cval t = loop_test(node.attr("test"));
            return t.k == cval::kind::constant
                       ? m_builder->constant(ir::scalar::of_bool(PyObject_IsTrue(t.obj.ptr()) == 1))
                       : value_of(t, node);
        };
        if (broke == ir::no_id)
        {
            return test_value();
        }
        ir::region_id stop = m_builder->new_region();
        ir::region_id go_on = m_builder->new_region();
        {
            ir::builder::insertion_guard keep(*m_builder);
            m_builder->set_insertion_end(stop);
            m_builder->set_results(stop, {m_builder->constant(ir::scalar::of_bool(false))});
        }
        {
            ir::builder::insertion_guard keep(*m_builder);
            m_builder->set_insertion_end(go_on);
            m_builder->set_results(go_on, {test_value()});
        }
        std::vector<ir::value_id> outs = m_builder->if_else(broke, stop, go_on);
        if (!m_builder->ok() || outs.size() != 1)
        {
            fail("while test after a break (IR: " + m_builder->state().message() + ")", node);
        }
        return outs[0];
    }
} // namespace specula::engine::converter
