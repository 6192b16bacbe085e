// `for` loops in converted code: a range that varies or is long becomes one
// IR LOOP (range_loop.cpp); other ranges and the items of tuples, lists and
// dicts whose structure is known at conversion are unrolled, unless the body
// changes what it walks.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{

    std::vector<cval> converter::iteration_items(py::handle iter, cval& seq)
    {
        std::vector<cval> items;
        if (dict_view_items(iter, seq, items))
        {
            return items; // containers.cpp: a dict the code built
        }
        if (node_type(iter) != "Name" && node_type(iter) != "Attribute")
        {
            seq = visit_expr(iter);
        }
        if (str_items(seq, items, iter))
        {
            return items; // str_slices.cpp
        }
        if (seq.k == cval::kind::tuple ||
            (seq.k == cval::kind::object &&
             (PyList_CheckExact(seq.obj.ptr()) || PyTuple_CheckExact(seq.obj.ptr()))))
        {
            return sequence_items(seq, iter);
        }
        fail("for over this iterable", iter);
    }

    // The items of a value whose structure is known at conversion: a tuple
    // built by the code, or a list/tuple source. A source's items are item
    // sources (re-read and guarded at every call) and its length is guarded:
    // a list can change length between calls, and another tuple can be passed.
    std::vector<cval> converter::sequence_items(const cval& seq, py::handle node)
    {
        if (seq.k == cval::kind::tuple)
        {
            return seq.items;
        }
        PyObject* o = seq.k == cval::kind::object ? seq.obj.ptr() : nullptr;
        if (o == nullptr || !(PyList_CheckExact(o) || PyTuple_CheckExact(o)))
        {
            fail("unpacking of this value", node);
        }
        if (appended_in_this_run(seq.src))
        {
            fail("unpacking a list appended to in this call", node);
        }
        const Py_ssize_t n = Py_SIZE(o);
        if (m_length_guarded.insert(seq.src).second)
        {
            m_spec->guards.add(make_length_guard(seq.src, n, m_spec->sources[seq.src].path));
        }
        if (n > m_config.max_unrolled_statements)
        {
            fail("unpacking of a sequence of " + std::to_string(n) + " items", node);
        }
        std::vector<cval> items;
        items.reserve(static_cast<size_t>(n));
        for (Py_ssize_t i = 0; i < n; ++i)
        {
            items.push_back(read_item(seq, py::int_(i), node));
        }
        return items;
    }

    void converter::visit_for(py::handle node)
    {
        if (py::len(node.attr("orelse")) != 0)
        {
            fail("for ... else", node);
        }
        const size_t effects_before = m_spec->effects.size();
        cval seq;
        std::vector<cval> items;
        bool over_sequence = false;
        py::handle iter = node.attr("iter");
        if (is_range_call(iter))
        {
            // A varying or long range: one IR LOOP (range_loop.cpp); else unrolled.
            call_args args = visit_args(iter);
            if (range_loop(node, args))
            {
                return;
            }
            seq = call_builtin("range", args, iter);
            items = seq.items;
        }
        else
        {
            items = iteration_items(iter, seq);
            over_sequence = true;
        }
        if (over_sequence)
        {
            m_sequence_loops.emplace_back(seq.list, &items); // code_lists.cpp
        }
        const dict_entry dict_before =
            seq.k == cval::kind::dict ? m_dicts[static_cast<size_t>(seq.dict)] : dict_entry{};
        for (const cval& item : items)
        {
            assign_to(node.attr("target"), item);
            visit_body(node.attr("body"));
            m_continuing = false;
            if (m_breaking)
            {
                m_breaking = false;
                break;
            }
            if (m_returned)
            {
                break;
            }
        }
        if (over_sequence)
        {
            m_sequence_loops.pop_back();
        }
        if (seq.k == cval::kind::dict && dict_changed(dict_before, seq.dict))
        {
            // Python raises on a size change and reads values as it goes.
            fail("for over a dict the loop body changes", node);
        }
        if (seq.k == cval::kind::object && PyDict_CheckExact(seq.obj.ptr()) &&
            source_dict_written(seq.src, seq.obj.ptr(), effects_before))
        {
            fail("for over a dict the loop body writes", node);
        }
        if (seq.k == cval::kind::object)
        {
            for (size_t i = effects_before; i < m_spec->effects.size(); ++i)
            {
                const effect_plan& e = m_spec->effects[i];
                if (e.k == effect_plan::kind::list_append && e.target == seq.src)
                {
                    // Python's loop would also visit the appended items.
                    fail("for over a list appended to in its body", node);
                }
                if ((e.k == effect_plan::kind::set_item ||
                     e.k == effect_plan::kind::set_computed_item) &&
                    e.target == seq.src)
                {
                    // Python's loop reads each item when it gets there.
                    fail("for over a list or dict whose items its body sets", node);
                }
            }
        }
    }
} // namespace specula::engine::converter
