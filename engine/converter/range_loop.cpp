// `for t in range(...)` as one IR LOOP instead of unrolled copies of the
// body: when a bound is a relaxed Python int (a trip count that changes
// between calls would otherwise recompile for every value), or when
// unrolling a constant range would copy more than a quarter of the statement
// budget. Small constant ranges stay unrolled (faster: no loop overhead,
// everything fused).
//
// The loop carries the locals the body rebinds that exist before the loop,
// and arrays the body updates in place through such a name; the index is the
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
        std::string node_type(py::handle node)
        {
            return py::str(node.get_type().attr("__name__"));
        }

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
        std::set<std::string> loop_only{target};
        std::vector<carried_slot> slots;
        for (const std::string& name : bound)
        {
            auto found = m_locals.find(name);
            if (name == target || found == m_locals.end())
            {
                loop_only.insert(name);
                continue;
            }
            slots.push_back(carried_local(name, found->second, node));
        }
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
        const size_t effects = m_spec->effects.size();
        const size_t heap_writes = m_heap_writes.size();
        const std::vector<dict_entry> dicts = m_dicts;
        std::vector<ir::value_id> values;
        for (const array_entry& e : m_arrays)
        {
            values.push_back(e.value);
        }
        std::vector<ir::value_type> arg_types{ir::value_type{ir::dtype::int64, ir::shape({})}};
        std::vector<ir::value_id> init;
        for (const carried_slot& s : slots)
        {
            arg_types.push_back(type_of(s.init));
            init.push_back(s.init);
        }
        ir::region_id body = m_builder->new_region(arg_types);
        std::vector<ir::value_id> results;
        {
            ir::builder::insertion_guard keep(*m_builder);
            m_builder->set_insertion_end(body);
            cval index = new_array(m_builder->binary(ir::op::ADD, m_builder->arg(body, 0), start),
                                   surface::py_int);
            m_arrays[static_cast<size_t>(index.arr)].int_lo = start_lo;
            m_arrays[static_cast<size_t>(index.arr)].int_hi = std::max(start_lo, stop_hi - 1);
            m_locals[target] = index;
            for (size_t k = 0; k < slots.size(); ++k)
            {
                carried_slot& s = slots[k];
                s.arg = m_builder->arg(body, static_cast<int>(k + 1));
                cval a = new_array(s.arg, s.surf);
                s.fresh = a.arr;
                m_locals[s.name] = a;
            }
            visit_body(node.attr("body"));
            if (m_breaking || m_continuing || m_returned)
            {
                fail("break, continue or return inside a for over range(...) converted as a loop",
                     node);
            }
            if (m_spec->effects.size() != effects || m_heap_writes.size() != heap_writes)
            {
                fail("effects (print, attribute, item or global writes, appends) inside a for "
                     "over range(...) converted as a loop",
                     node);
            }
            for (size_t i = 0; i < values.size(); ++i)
            {
                if (m_arrays[i].value != values[i])
                {
                    fail("in-place update of an array from outside a for over range(...) "
                         "converted as a loop",
                         node);
                }
            }
            for (size_t i = 0; i < dicts.size(); ++i)
            {
                if (dicts[i].keys.size() != m_dicts[i].keys.size())
                {
                    fail("dict changed inside a for over range(...) converted as a loop", node);
                }
            }
            for (size_t k = 0; k < slots.size(); ++k)
            {
                results.push_back(carried_result(slots[k], values.size(), arg_types[k + 1], node));
            }
            m_builder->set_results(body, results);
        }
        std::vector<ir::value_id> outs =
            m_builder->loop(ir::loop_attr{true, false}, trips, ir::no_id, init, body);
        if (!m_builder->ok() || outs.size() != slots.size())
        {
            fail("for over range(...) as a loop (IR: " + m_builder->state().message() + ")", node);
        }
        for (const carried_slot& s : slots)
        {
            if (s.orig >= 0 && !s.in_place)
            {
                // Without a trip the name keeps naming its object (maybe an
                // input), not the loop's output.
                add_assert(m_builder->binary(ir::op::GT, trips, zero),
                           "for at " + where(node) + " ran no trip");
                break;
            }
        }
        m_locals = before;
        for (size_t k = 0; k < slots.size(); ++k)
        {
            const carried_slot& s = slots[k];
            if (s.in_place)
            {
                write_array(s.orig, outs[k], node);
                continue;
            }
            m_locals[s.name] = new_array(outs[k], s.surf);
        }
    }

    // A local the loop body rebinds that exists before the loop.
    carried_slot converter::carried_local(const std::string& name, const cval& v, py::handle node)
    {
        carried_slot s;
        s.name = name;
        if (v.k == cval::kind::constant && PyFloat_CheckExact(v.obj.ptr()))
        {
            s.init = scalar_constant(v, ir::dtype::float64, node);
            s.surf = surface::py_float;
            return s;
        }
        if (v.k != cval::kind::array)
        {
            fail("local " + name +
                     " (not an array or a float) rebound in a for over range(...) converted as "
                     "a loop",
                 node);
        }
        const array_entry& e = m_arrays[static_cast<size_t>(v.arr)];
        if (e.surf == surface::py_int)
        {
            fail("Python int " + name +
                     " carried from trip to trip of a for over range(...) converted as a loop "
                     "(its range would be unknown)",
                 node);
        }
        s.init = e.value;
        s.surf = e.surf;
        s.orig = v.arr;
        return s;
    }

    // The value a carried local has at the end of a trip.
    ir::value_id converter::carried_result(carried_slot& s, size_t entries_before,
                                           const ir::value_type& type, py::handle node)
    {
        const cval& now = m_locals.at(s.name);
        if (now.k != cval::kind::array)
        {
            fail("local " + s.name +
                     " given a value other than an array in a for over range(...) converted as "
                     "a loop",
                 node);
        }
        const array_entry& fresh = m_arrays[static_cast<size_t>(s.fresh)];
        const bool written = fresh.value != s.arg;
        if (now.arr == s.fresh)
        {
            // Updated in place through the name (or only read): the object
            // before the loop gets the final value.
            s.in_place = written && s.orig >= 0;
            return fresh.value;
        }
        if (written)
        {
            fail("array " + s.name +
                     " both updated in place and rebound in a for over range(...) converted as "
                     "a loop",
                 node);
        }
        const array_entry& e = m_arrays[static_cast<size_t>(now.arr)];
        if (static_cast<size_t>(now.arr) < entries_before || e.src >= 0 || e.view_of >= 0)
        {
            fail("local " + s.name +
                     " names an input, an array from before the loop or a view after a trip of "
                     "a for over range(...) converted as a loop",
                 node);
        }
        if (e.surf != s.surf || type_of(e.value) != type)
        {
            fail("local " + s.name +
                     " changes type from one trip to the next of a for over range(...) "
                     "converted as a loop",
                 node);
        }
        return e.value;
    }
} // namespace specula::engine::converter
