// Control flow beyond the straight line: `while` unrolled on specialised
// values, `if` on array data as an IR conditional, list comprehensions, and
// generator expressions consumed at once by an unpacking assignment.
#include "engine/converter/converter.hpp"

#include <algorithm>
#include <utility>

namespace specula::engine::converter
{
    namespace
    {
        // Whether a `return` occurs in these statements (not in nested
        // function or class bodies).
        bool may_return(py::handle statements)
        {
            py::module_ ast = py::module_::import("ast");
            for (py::handle stmt : statements)
            {
                for (py::handle n : ast.attr("walk")(stmt))
                {
                    const std::string kind = node_type(n);
                    if (kind == "Return")
                    {
                        return true;
                    }
                }
            }
            return false;
        }

        // Trips of one `while` unrolled at most (the statement budget also holds).
        constexpr int max_while_trips = 1000;

        bool same_value(const cval& a, const cval& b)
        {
            if (a.k != b.k)
            {
                return false;
            }
            switch (a.k)
            {
            case cval::kind::array:
            case cval::kind::tree:
                return a.arr == b.arr;
            case cval::kind::object:
                return a.src == b.src;
            case cval::kind::dict:
                return a.dict == b.dict; // unchanged inside the branches (visit_branch)
            case cval::kind::constant:
                // Equal literals on both sides (`s = 0.5`): the same value and type.
                return a.obj.ptr() == b.obj.ptr() ||
                       (Py_TYPE(a.obj.ptr()) == Py_TYPE(b.obj.ptr()) &&
                        std::string(py::repr(a.obj)) == std::string(py::repr(b.obj)));
            case cval::kind::tuple:
                // Two lists are two objects, whatever their items.
                if (a.items.size() != b.items.size() || a.list != b.list)
                {
                    return false;
                }
                for (size_t i = 0; i < a.items.size(); ++i)
                {
                    if (!same_value(a.items[i], b.items[i]))
                    {
                        return false;
                    }
                }
                return true;
            }
            return false;
        }

        // The Python number a value is (py_int, py_float, py_bool: a literal,
        // a guarded constant or a graph value of that surface), else ndarray.
        surface number_surface(const cval& v, const std::vector<array_entry>& arrays)
        {
            if (v.k == cval::kind::constant)
            {
                PyObject* o = v.obj.ptr(); // borrowed from v.obj
                return PyBool_Check(o)         ? surface::py_bool
                       : PyLong_CheckExact(o)  ? surface::py_int
                       : PyFloat_CheckExact(o) ? surface::py_float
                                               : surface::ndarray;
            }
            if (v.k != cval::kind::array)
            {
                return surface::ndarray;
            }
            const surface s = arrays[static_cast<size_t>(v.arr)].surf;
            const bool number =
                s == surface::py_int || s == surface::py_float || s == surface::py_bool;
            return number ? s : surface::ndarray;
        }
    } // namespace

    // `while cond:` where every trip's condition is known under the guards
    // (it depends on specialised values only): unrolled. A different trip
    // count on a later call comes from a different guarded value: a miss.
    // A test on array data follows the trip count profiled (profiled_flow.cpp).
    void converter::visit_while(py::handle node)
    {
        if (py::len(node.attr("orelse")) != 0)
        {
            fail("while ... else", node);
        }
        const bool may_loop = m_whole_function && !m_tree;
        for (int trips = 0;; ++trips)
        {
            cval test = may_loop ? loop_test(node.attr("test")) : visit_expr(node.attr("test"));
            if (test.k == cval::kind::array)
            {
                if (trips == 0 && wants_while_loop(node))
                {
                    build_while_loop(node, test); // while_loop.cpp
                    return;
                }
                // Unrolled to the trip count profiled, each trip asserted.
                if (!profiled_while_test(node, test, trips))
                {
                    return;
                }
            }
            else if (test.k != cval::kind::constant)
            {
                fail("while on this value", node);
            }
            else if (trips == 0 && may_loop && PyObject_IsTrue(test.obj.ptr()) == 1 &&
                     (exits_on_data(node) || test_turns_data(node)))
            {
                build_while_loop(node, test); // a break on array data needs the IR loop
                return;
            }
            else if (PyObject_IsTrue(test.obj.ptr()) != 1)
            {
                return;
            }
            if (trips >= max_while_trips)
            {
                fail("while loop of more than " + std::to_string(max_while_trips) + " trips", node);
            }
            visit_body(node.attr("body"));
            m_continuing = false;
            if (m_breaking)
            {
                m_breaking = false;
                return;
            }
            if (m_returned)
            {
                return;
            }
        }
    }

    // One side of a data-dependent `if`, built into `region`; m_locals and
    // m_result are what it leaves. Whether it returned. Effects, loop exits
    // and in-place updates of arrays that exist outside the branch would need
    // conditional commits: refused.
    bool converter::visit_branch(py::handle body, ir::region_id region, py::handle node)
    {
        const size_t effects = m_spec->effects.size();
        const size_t heap_writes = m_heap_writes.size();
        const size_t inputs = m_spec->inputs.size();
        const std::vector<dict_entry> dicts = m_dicts;
        std::vector<ir::value_id> values;
        for (const array_entry& e : m_arrays)
        {
            values.push_back(e.value);
        }
        m_returned = false;
        {
            ir::builder::insertion_guard keep(*m_builder);
            m_builder->set_insertion_end(region);
            visit_body(body);
        }
        if (m_breaking || m_continuing)
        {
            fail("break or continue inside an if on array data", node);
        }
        if (m_spec->effects.size() != effects || m_heap_writes.size() != heap_writes)
        {
            fail("effects inside an if on array data", node);
        }
        // Inputs are hoisted into the graph's body; only the recursion's
        // loop body relies on that so far.
        if (m_spec->inputs.size() != inputs && !m_tree)
        {
            fail("a value first read inside an if on array data", node);
        }
        for (size_t i = 0; i < values.size(); ++i)
        {
            if (m_arrays[i].value != values[i])
            {
                fail("in-place update inside an if on array data", node);
            }
        }
        for (size_t i = 0; i < dicts.size(); ++i)
        {
            bool same = dicts[i].keys.size() == m_dicts[i].keys.size();
            for (size_t k = 0; same && k < dicts[i].values.size(); ++k)
            {
                same = same_value(dicts[i].values[k], m_dicts[i].values[k]);
            }
            if (!same)
            {
                fail("dict changed inside an if on array data", node);
            }
        }
        const bool returned = m_returned;
        m_returned = false;
        return returned;
    }

    // The value after a data-dependent `if` of something the two sides give
    // as `a` and `b`: the same value, a tuple of merged items, or a new
    // array of one type and surface on both sides (a placeholder -1 - k for
    // the k-th pair in `pairs`, the IF's k-th result).
    cval converter::merge_values(const cval& a, const cval& b,
                                 std::vector<std::pair<int, int>>& pairs, const std::string& what,
                                 py::handle node)
    {
        if (same_value(a, b))
        {
            return a;
        }
        if (a.k == cval::kind::tuple && b.k == cval::kind::tuple && a.list != b.list)
        {
            fail(what + " bound to different lists by an if on array data", node);
        }
        if (a.k == cval::kind::tuple && b.k == cval::kind::tuple &&
            a.items.size() == b.items.size() &&
            (a.obj.ptr() == nullptr) == (b.obj.ptr() == nullptr))
        {
            cval out = a;
            for (size_t i = 0; i < a.items.size(); ++i)
            {
                out.items[i] = merge_values(a.items[i], b.items[i], pairs, what, node);
            }
            return out;
        }
        const surface number = number_surface(a, m_arrays);
        const surface other = number_surface(b, m_arrays);
        if ((a.k != cval::kind::array || b.k != cval::kind::array) && number != surface::ndarray &&
            other == number)
        {
            // Python numbers of one type (`pos = 0` on one side, the carried
            // int on the other): graph values of that surface, so the IF
            // gives the number either side leaves.
            return merge_values(number_value(a, number, node), number_value(b, number, node), pairs,
                                what, node);
        }
        if (number != other)
        {
            // A Python float on one side, a NumPy scalar or an int on the
            // other: CPython's value would have another type after the if.
            fail(what + " of different types on the two sides of an if on array data", node);
        }
        if (a.k != cval::kind::array || b.k != cval::kind::array)
        {
            fail(what + " given different non-array values by an if on array data", node);
        }
        const array_entry& x = m_arrays[static_cast<size_t>(a.arr)];
        const array_entry& y = m_arrays[static_cast<size_t>(b.arr)];
        if (x.src >= 0 || y.src >= 0 || x.view_of >= 0 || y.view_of >= 0)
        {
            fail(what + " naming an input array or a view on one side of an if on array data",
                 node);
        }
        if (x.surf != y.surf || type_of(x.value) != type_of(y.value))
        {
            fail(what + " of different types on the two sides of an if on array data", node);
        }
        pairs.push_back({a.arr, b.arr});
        cval placeholder;
        placeholder.k = cval::kind::array;
        placeholder.arr = -static_cast<int>(pairs.size());
        return placeholder;
    }

    // A Python number merged by an IF as a graph value of surface `s`: a
    // constant becomes an int64 (a Python int, its range the one value),
    // float64 or bool constant of the graph; a graph value stays itself.
    cval converter::number_value(const cval& v, surface s, py::handle node)
    {
        if (v.k == cval::kind::array)
        {
            return v;
        }
        if (s == surface::py_float)
        {
            return new_array(scalar_constant(v, ir::dtype::float64, node), s);
        }
        if (s == surface::py_bool)
        {
            return new_array(scalar_constant(v, ir::dtype::bool_, node), s);
        }
        int overflow = 0;
        const long long i = PyLong_AsLongLongAndOverflow(v.obj.ptr(), &overflow);
        if (overflow != 0)
        {
            fail("Python int beyond 64 bits given by an if on array data", node);
        }
        cval out = new_array(scalar_constant(v, ir::dtype::int64, node), s);
        m_arrays[static_cast<size_t>(out.arr)].int_lo = i;
        m_arrays[static_cast<size_t>(out.arr)].int_hi = i;
        return out;
    }

    // `if <0-d array value>:` with both sides convertible: an IR IF whose
    // results are the locals the sides bind differently, or the value both
    // sides return (`if c: return a` followed by `return b` too: the rest of
    // the body then follows on both sides). No branch is assumed, so a branch
    // that flips between calls needs no recompilation.
    void converter::visit_data_if(py::handle node, const cval& test, py::object rest)
    {
        ir::value_id cond = truth_value(test, node);
        const std::map<std::string, cval> before = m_locals;
        ir::region_id then_region = m_builder->new_region();
        ir::region_id else_region = m_builder->new_region();
        // A side that may return takes the rest of the body with it (on both
        // sides: the rest runs after whichever side does not return), so both
        // sides end in a return and the IF gives the return value.
        py::list then_body = node.attr("body");
        py::list else_body = node.attr("orelse");
        if (rest && py::len(rest) > 0 && (may_return(then_body) || may_return(else_body)))
        {
            then_body = py::list(then_body + rest);
            else_body = py::list(else_body + rest);
        }
        // Attributes set on a tree node so far, per path (tree_writes.cpp).
        const std::vector<std::string> writes_before =
            m_tree ? m_tree->path_writes : std::vector<std::string>{};
        const std::set<std::string> sure_before =
            m_tree ? m_tree->path_sure : std::set<std::string>{};
        const bool then_returned = visit_branch(then_body, then_region, node);
        std::map<std::string, cval> then_locals = std::move(m_locals);
        cval then_result = m_result;
        m_locals = before;
        std::vector<std::string> then_writes;
        std::set<std::string> then_sure;
        if (m_tree)
        {
            then_writes = std::exchange(m_tree->path_writes, writes_before);
            then_sure = std::exchange(m_tree->path_sure, sure_before);
        }
        const bool else_returned = visit_branch(else_body, else_region, node);
        for (const std::string& w : then_writes)
        {
            auto& after = m_tree->path_writes; // either side's writes precede what follows
            if (std::find(after.begin(), after.end(), w) == after.end())
            {
                after.push_back(w);
            }
        }
        if (m_tree)
        {
            std::set<std::string> both; // set whichever side ran
            for (const std::string& w : then_sure)
            {
                if (m_tree->path_sure.count(w) != 0)
                {
                    both.insert(w);
                }
            }
            m_tree->path_sure = std::move(both);
        }
        if (then_returned != else_returned)
        {
            fail("return on one side of an if on array data only", node);
        }
        std::vector<std::pair<int, int>> pairs;
        cval merged_result;
        std::map<std::string, cval> merged;
        if (then_returned)
        {
            merged_result = merge_values(then_result, m_result, pairs, "the return value", node);
        }
        else
        {
            for (const auto& [name, v] : then_locals)
            {
                auto other = m_locals.find(name);
                if (other == m_locals.end())
                {
                    fail("local " + name + " bound on one side of an if on array data only", node);
                }
                merged[name] = merge_values(v, other->second, pairs, "local " + name, node);
            }
            for (const auto& [name, v] : m_locals)
            {
                if (!then_locals.count(name))
                {
                    fail("local " + name + " bound on one side of an if on array data only", node);
                }
            }
        }
        std::vector<ir::value_id> then_results, else_results;
        for (const auto& [t, e] : pairs)
        {
            then_results.push_back(m_arrays[static_cast<size_t>(t)].value);
            else_results.push_back(m_arrays[static_cast<size_t>(e)].value);
        }
        m_builder->set_results(then_region, then_results);
        m_builder->set_results(else_region, else_results);
        std::vector<ir::value_id> outs = m_builder->if_else(cond, then_region, else_region);
        if (!m_builder->ok() || outs.size() != pairs.size())
        {
            fail("if on array data (IR: " + m_builder->state().message() + ")", node);
        }
        std::vector<cval> results;
        for (size_t i = 0; i < pairs.size(); ++i)
        {
            const array_entry& a = m_arrays[static_cast<size_t>(pairs[i].first)];
            const array_entry& b = m_arrays[static_cast<size_t>(pairs[i].second)];
            const std::int64_t lo = std::min(a.int_lo, b.int_lo);
            const std::int64_t hi = std::max(a.int_hi, b.int_hi);
            cval out = new_array(outs[i], a.surf);
            m_arrays[static_cast<size_t>(out.arr)].int_lo = lo;
            m_arrays[static_cast<size_t>(out.arr)].int_hi = hi;
            results.push_back(out);
        }
        auto substitute = [&results](cval& v, auto& self) -> void
        {
            if (v.k == cval::kind::array && v.arr < 0)
            {
                v = results[static_cast<size_t>(-v.arr - 1)];
            }
            for (cval& item : v.items)
            {
                self(item, self);
            }
        };
        if (then_returned)
        {
            substitute(merged_result, substitute);
            m_result = merged_result;
            m_returned = true;
            m_locals = before;
            return;
        }
        for (auto& [name, v] : merged)
        {
            substitute(v, substitute);
        }
        m_locals = std::move(merged);
    }

    // `[elt for target in iterable if cond]` over a sequence whose structure
    // is known, with filters on specialised values: the items, in order. The
    // target is local to the comprehension (Python 3 scoping). A generator
    // expression is lazy, so it is only taken where it is consumed at once.
    cval converter::visit_comprehension(py::handle node, bool consumed_at_once)
    {
        const bool generator = node_type(node) == "GeneratorExp";
        if (generator && !consumed_at_once)
        {
            fail("generator expression (lazy evaluation)", node);
        }
        py::list generators = node.attr("generators");
        if (py::len(generators) != 1)
        {
            fail("comprehension with several for clauses", node);
        }
        py::handle clause = generators[0];
        if (clause.attr("is_async").cast<int>() != 0)
        {
            fail("async comprehension", node);
        }
        cval seq;
        note_run_time_str_slice(clause, node.attr("elt")); // str_slices.cpp
        std::vector<cval> items = iteration_items(clause.attr("iter"), seq);
        m_run_time_str_slice = nullptr;
        std::map<std::string, cval> enclosing = m_locals;
        ++m_comprehension_depth; // the enclosing locals come back below (code_lists.cpp)
        std::set<std::string> declared;
        std::swap(m_declared_globals, declared); // the target never names a global
        cval out;
        out.k = cval::kind::tuple;
        for (const cval& item : items)
        {
            if (++m_statements > m_config.max_unrolled_statements)
            {
                fail("too many statements after unrolling", node);
            }
            assign_to(clause.attr("target"), item);
            bool keep = true;
            for (py::handle condition : clause.attr("ifs"))
            {
                cval test = visit_expr(condition);
                if (test.k != cval::kind::constant)
                {
                    fail("comprehension filter on array data", condition);
                }
                keep = keep && PyObject_IsTrue(test.obj.ptr()) == 1;
                if (!keep)
                {
                    break;
                }
            }
            if (keep)
            {
                out.items.push_back(visit_expr(node.attr("elt")));
            }
        }
        std::swap(m_declared_globals, declared);
        m_locals = std::move(enclosing);
        --m_comprehension_depth;
        if (!generator)
        {
            return new_code_list(out); // code_lists.cpp
        }
        return out;
    }
} // namespace specula::engine::converter
