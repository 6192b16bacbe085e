// Lists the converted code builds itself (`hs, ps = [h], []`, `[np.zeros_like(w)
// for w in params]`): known item by item at conversion, like tuples, and
// appended to as the code runs (`hs.append(h)` in an unrolled time loop).
//
// Python lists are shared by reference; converted values are copies. So an
// append updates every copy the converter holds (locals, values written to
// the heap, dicts and lists the code built, and the list's own entry in
// m_lists), and is refused where a copy is out of reach: a list built in
// another function than the one that appends (an inlined callee's caller
// holds its own locals), an append inside a comprehension, inside a `for`
// over a sequence that is or holds the list (its remaining items are copies
// taken when the loop started), or inside an expression (the other operands
// already hold copies).
//
// A list that reaches Python (a global, a rebound local of a loop in a
// function, a return value, an item appended to a list source) is one new
// list object built after the run. Its plans are filled at the end of the
// conversion from the list's final items, so appends after it was stored are
// in it, as in the one object CPython would have; each item's plan keeps
// identity (the same array twice is one output, a source is the object
// itself), and the runner builds one object per list however many places it
// reaches (value_plan::index).
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        bool contains_list(const cval& v, int list)
        {
            if (v.list == list)
            {
                return true;
            }
            for (const cval& item : v.items)
            {
                if (contains_list(item, list))
                {
                    return true;
                }
            }
            return false;
        }

        void append_everywhere(cval& v, int list, const cval& item)
        {
            for (cval& inner : v.items)
            {
                append_everywhere(inner, list, item);
            }
            if (v.k == cval::kind::tuple && v.list == list)
            {
                v.items.push_back(item);
            }
        }
    } // namespace

    cval converter::new_code_list(cval items)
    {
        items.k = cval::kind::tuple;
        items.obj = py::str("list"); // as an argument (a shape, np.array([...])) a sequence
        items.list = static_cast<int>(m_lists.size());
        code_list entry;
        entry.items = items.items;
        entry.depth = m_inlined.size();
        m_lists.push_back(std::move(entry));
        return items;
    }

    bool converter::is_code_list(const cval& v) const
    {
        return v.k == cval::kind::tuple && v.list >= 0;
    }

    cval converter::append_to_code_list(const cval& list, const call_args& args, py::handle node)
    {
        if (args.positional.size() != 1 || !args.keywords.empty())
        {
            fail("list.append with these arguments", node);
        }
        const cval& item = args.positional[0];
        const code_list& entry = m_lists[static_cast<size_t>(list.list)];
        if (node.ptr() != m_statement_call)
        {
            fail("list.append inside an expression (not a statement of its own)", node);
        }
        if (entry.depth != m_inlined.size())
        {
            fail("list.append to a list built by the code in another function", node);
        }
        if (m_comprehension_depth > 0)
        {
            // The comprehension's scope ends with the enclosing locals as
            // they were before it.
            fail("list.append inside a comprehension", node);
        }
        for (const auto& [iterated, items] : m_sequence_loops)
        {
            bool held = iterated == list.list;
            for (const cval& v : *items)
            {
                held = held || contains_list(v, list.list);
            }
            if (held)
            {
                // Python's loop reads the list (or the items holding it) as
                // it goes; the unrolled loop took copies when it started.
                fail("list.append inside a for over a sequence holding that list", node);
            }
        }
        if (entry.sealed)
        {
            // Its plan holds its final items, whichever path the run took.
            fail("list.append after a cell loop's exit on data to a list bound before it", node);
        }
        if (entry.lazily_read)
        {
            // The iterator Python made reads the list as it goes.
            fail("list.append to a list zip/enumerate/reversed read", node);
        }
        if (contains_list(item, list.list))
        {
            fail("a list appended to itself", node);
        }
        for (auto& [name, v] : m_locals)
        {
            append_everywhere(v, list.list, item);
        }
        for (auto& [path, v] : m_heap_writes)
        {
            append_everywhere(v, list.list, item);
        }
        for (auto& [src, writes] : m_item_writes)
        {
            for (item_write& w : writes)
            {
                append_everywhere(w.value, list.list, item);
            }
        }
        for (dict_entry& d : m_dicts)
        {
            for (cval& v : d.values)
            {
                append_everywhere(v, list.list, item);
            }
        }
        for (code_list& l : m_lists)
        {
            for (cval& v : l.items)
            {
                append_everywhere(v, list.list, item);
            }
        }
        m_lists[static_cast<size_t>(list.list)].items.push_back(item);
        // A change of the heap as far as branches and loops are concerned:
        // an IR IF side or LOOP body refuses it (its copies are not merged).
        m_heap_writes["list#" + std::to_string(list.list) + ".append#" +
                      std::to_string(m_heap_writes.size())] = item;
        cval none;
        none.obj = py::none();
        return none;
    }

    value_plan converter::code_list_plan(const cval& v, py::handle node, bool identity_visible)
    {
        value_plan p;
        p.k = value_plan::kind::list;
        if (!identity_visible)
        {
            // Printed: its text now.
            for (const cval& item : v.items)
            {
                p.items.push_back(plan_of(item, node, false));
            }
            return p;
        }
        code_list& entry = m_lists[static_cast<size_t>(v.list)];
        if (!entry.planned)
        {
            entry.planned = true;
            entry.where = py::reinterpret_borrow<py::object>(node);
        }
        // The items are planned by fill_code_lists(); every plan of this
        // list names it, and the run builds it once.
        p.index = v.list;
        return p;
    }

    void converter::fill_list_plans(value_plan& p)
    {
        if (p.k == value_plan::kind::list && p.index >= 0 && p.items.empty())
        {
            const code_list& entry = m_lists[static_cast<size_t>(p.index)];
            for (const cval& item : entry.items)
            {
                p.items.push_back(plan_of(item, entry.where, true));
            }
        }
        for (value_plan& item : p.items)
        {
            fill_list_plans(item);
        }
    }

    void converter::fill_code_lists()
    {
        for (effect_plan& e : m_spec->effects)
        {
            fill_list_plans(e.value);
            for (value_plan& a : e.args)
            {
                fill_list_plans(a);
            }
        }
        fill_list_plans(m_spec->result);
    }
} // namespace specula::engine::converter
