// `for t in range(...)` as one IR LOOP instead of unrolled copies of the
// body: when a bound is a relaxed Python int (a trip count that changes
// between calls would otherwise recompile for every value), or when
// unrolling a constant range would copy more than a quarter of the statement
// budget. Small constant ranges stay unrolled (faster: no loop overhead,
// everything fused).
//
// The loop carries the locals the body rebinds that exist before the loop,
// and arrays the body updates in place through such a name
// (loop_carried_names.cpp); the index is the
// loop counter plus the start. Refused (located): effects in the body (print,
// setattr, appends: they would need per-iteration stacking), break, continue
// and return, Python ints carried from one trip to the next (their range
// would be unknown), values whose type changes from one trip to the next, and
// the loop's target or a local first bound in the body read after the loop.
#include "engine/converter/converter.hpp"
#include "engine/converter/loop_scan.hpp"

#include <algorithm>
#include <limits>

namespace specula::engine::converter
{
    namespace
    {
        bool own_scope(const std::string& kind)
        {
            return kind == "FunctionDef" || kind == "AsyncFunctionDef" || kind == "ClassDef" ||
                   kind == "Lambda" || kind == "ListComp" || kind == "SetComp" ||
                   kind == "DictComp" || kind == "GeneratorExp";
        }

        // A constant Python int, or a value outside int64's range (never a bound here).
        long long int_constant(const cval& c)
        {
            int overflow = 0;
            const long long v = PyLong_AsLongLongAndOverflow(c.obj.ptr(), &overflow);
            if (overflow != 0 || (v == -1 && PyErr_Occurred()))
            {
                PyErr_Clear();
                return std::numeric_limits<long long>::max();
            }
            return v;
        }

    } // namespace

    void walk_scope(py::handle node, const std::function<void(py::handle)>& visit)
    {
        visit(node);
        py::module_ ast = py::module_::import("ast");
        for (py::handle child : ast.attr("iter_child_nodes")(node))
        {
            if (!own_scope(node_type(child)))
            {
                walk_scope(child, visit);
            }
        }
    }

    void bound_names(py::handle statements, std::set<std::string>& names, int& size)
    {
        for (py::handle stmt : statements)
        {
            walk_scope(stmt,
                       [&](py::handle n)
                       {
                           const std::string kind = node_type(n);
                           if (kind == "Name" && node_type(n.attr("ctx")) == "Store")
                           {
                               names.insert(py::str(n.attr("id")));
                           }
                           if (py::isinstance(n, py::module_::import("ast").attr("stmt")))
                           {
                               ++size;
                           }
                       });
        }
    }

    std::set<std::string> augmented_only_names(py::handle statements)
    {
        std::set<PyObject*> aug_targets;
        std::set<std::string> augmented, other;
        for (py::handle stmt : statements)
        {
            walk_scope(stmt,
                       [&](py::handle n)
                       {
                           if (node_type(n) == "AugAssign" &&
                               node_type(n.attr("target")) == "Name")
                           {
                               aug_targets.insert(n.attr("target").ptr());
                           }
                       });
        }
        for (py::handle stmt : statements)
        {
            walk_scope(stmt,
                       [&](py::handle n)
                       {
                           if (node_type(n) == "Name" && node_type(n.attr("ctx")) != "Load")
                           {
                               (aug_targets.count(n.ptr()) ? augmented : other)
                                   .insert(py::str(n.attr("id")));
                           }
                       });
        }
        std::set<std::string> out;
        for (const std::string& name : augmented)
        {
            if (!other.count(name))
            {
                out.insert(name);
            }
        }
        return out;
    }

    py::handle binding_statement(const py::list& statements, const std::string& name)
    {
        for (py::handle stmt : statements)
        {
            std::set<std::string> bound;
            int size = 0;
            py::list one;
            one.append(stmt);
            bound_names(one, bound, size);
            if (bound.count(name))
            {
                return stmt;
            }
        }
        return py::len(statements) > 0 ? statements[0] : py::handle();
    }

    // Whether this `for` over `range(...)` (its evaluated arguments) was
    // converted as an IR LOOP; false: unroll it.
    bool converter::range_loop(py::handle node, const call_args& args)
    {
        const auto& p = args.positional;
        if (!m_whole_function || m_tree || p.empty() || p.size() > 3 || !args.keywords.empty() ||
            node_type(node.attr("target")) != "Name")
        {
            return false;
        }
        bool all_constant = true;
        for (const cval& c : p)
        {
            all_constant = all_constant && c.k == cval::kind::constant;
            if (c.k == cval::kind::constant && !PyLong_CheckExact(c.obj.ptr()))
            {
                return false; // range() itself raises (TypeError) or takes bools: unrolled path
            }
            if (c.k == cval::kind::array &&
                m_arrays[static_cast<size_t>(c.arr)].surf != surface::py_int)
            {
                return false;
            }
            if (c.k != cval::kind::constant && c.k != cval::kind::array)
            {
                return false;
            }
        }
        if (p.size() == 3 && (p[2].k != cval::kind::constant || int_constant(p[2]) != 1))
        {
            if (!all_constant)
            {
                fail("range with a step other than 1 and a bound that changes between calls", node);
            }
            return false;
        }
        std::set<std::string> bound;
        int size = 0;
        bound_names(node.attr("body"), bound, size);
        if (all_constant)
        {
            py::tuple targs(p.size());
            for (size_t i = 0; i < p.size(); ++i)
            {
                targs[i] = p[i].obj;
            }
            const auto trips = static_cast<std::int64_t>(
                py::len(py::module_::import("builtins").attr("range")(*targs)));
            if (trips * std::max(size, 1) <= m_config.max_unrolled_statements / 4)
            {
                return false;
            }
            for (const cval& c : p)
            {
                const long long v = int_constant(c);
                if (v < relaxed_int_lo || v > relaxed_int_hi)
                {
                    return false;
                }
            }
        }
        build_range_loop(node, p, bound);
        return true;
    }

    // The loop's target and the locals first bound in its body are not
    // carried out of it: refused when the function reads them outside it.
    void converter::check_loop_locals_unread(py::handle node, const std::set<std::string>& names)
    {
        int first_line = 1;
        py::object statements = parsed_body(p_code, first_line);
        const int lo = node.attr("lineno").cast<int>();
        const int hi = node.attr("end_lineno").cast<int>();
        for (py::handle stmt : statements)
        {
            walk_scope(stmt,
                       [&](py::handle n)
                       {
                           if (node_type(n) != "Name" || node_type(n.attr("ctx")) != "Load")
                           {
                               return;
                           }
                           const std::string id = py::str(n.attr("id"));
                           const int line = n.attr("lineno").cast<int>();
                           if (names.count(id) && (line < lo || line > hi))
                           {
                               fail("local " + id +
                                        " bound inside a loop converted as an IR loop, read "
                                        "outside it",
                                    node);
                           }
                       });
        }
    }

    void converter::build_range_loop(py::handle node, const std::vector<cval>& p,
                                     const std::set<std::string>& bound)
    {
        const std::string target = py::str(node.attr("target").attr("id"));
        carried_loop loop;
        loop.what = "a for over range(...) converted as a loop";
        std::set<std::string> loop_only{target};
        carried_names(loop, bound, target, loop_only, node);
        check_loop_locals_unread(node, loop_only);

        // Bounds: int64 scalars and their ranges.
        auto bound_value = [&](const cval& c, std::int64_t& lo, std::int64_t& hi)
        {
            if (c.k == cval::kind::constant)
            {
                lo = hi = int_constant(c);
                return m_builder->constant(ir::scalar::of_int(ir::dtype::int64, lo));
            }
            const array_entry& e = m_arrays[static_cast<size_t>(c.arr)];
            lo = e.int_lo;
            hi = e.int_hi;
            if (type_of(e.value).elem != ir::dtype::int64 || type_of(e.value).dims.rank() != 0)
            {
                fail("range bound that is not an int64 scalar", node);
            }
            return e.value;
        };
        std::int64_t start_lo = 0, start_hi = 0, stop_lo = 0, stop_hi = 0;
        ir::value_id start = p.size() >= 2
                                 ? bound_value(p[0], start_lo, start_hi)
                                 : m_builder->constant(ir::scalar::of_int(ir::dtype::int64, 0));
        ir::value_id stop = bound_value(p.size() >= 2 ? p[1] : p[0], stop_lo, stop_hi);
        ir::value_id zero = m_builder->constant(ir::scalar::of_int(ir::dtype::int64, 0));
        ir::value_id trips =
            m_builder->binary(ir::op::MAXIMUM, m_builder->binary(ir::op::SUB, stop, start), zero);

        const std::map<std::string, cval> before = m_locals;
        std::vector<ir::value_id> init;
        ir::region_id body = open_carried_loop(loop, init);
        {
            ir::builder::insertion_guard keep(*m_builder);
            m_builder->set_insertion_end(body);
            cval index = new_array(m_builder->binary(ir::op::ADD, m_builder->arg(body, 0), start),
                                   surface::py_int);
            m_arrays[static_cast<size_t>(index.arr)].int_lo = start_lo;
            m_arrays[static_cast<size_t>(index.arr)].int_hi = std::max(start_lo, stop_hi - 1);
            m_locals[target] = index;
            bind_carried_args(loop, body);
            visit_body(node.attr("body"));
            if (m_breaking || m_continuing || m_returned)
            {
                fail("break, continue or return inside " + loop.what, node);
            }
            check_carried_trip(loop, node);
            std::vector<ir::value_id> results;
            for (carried_slot& s : loop.slots)
            {
                results.push_back(carried_result(loop, s, node));
            }
            m_builder->set_results(body, results);
        }
        std::vector<ir::value_id> outs =
            m_builder->loop(ir::loop_attr{true, false}, trips, ir::no_id, init, body);
        if (!m_builder->ok() || outs.size() != loop.slots.size())
        {
            fail("for over range(...) as a loop (IR: " + m_builder->state().message() + ")", node);
        }
        for (const carried_slot& s : loop.slots)
        {
            if (s.orig >= 0 && !s.in_place && !s.shares_object)
            {
                // Without a trip the name keeps naming its object (maybe an
                // input), not the loop's output.
                add_assert(m_builder->binary(ir::op::GT, trips, zero),
                           "for at " + where(node) + " ran no trip");
                break;
            }
        }
        m_locals = before;
        close_carried_loop(loop, outs, node);
    }
} // namespace specula::engine::converter
