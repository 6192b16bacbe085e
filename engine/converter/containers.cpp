// Dicts the converted code builds itself ({}, {"W": a}, d[t] = x, d.update(...)),
// keyed by specialised values such as unrolled loop indices (min-char-rnn keeps
// its time steps in dicts). Keys are known at conversion, so a dict is a list of
// (key, value) pairs in insertion order; returning or storing it builds a new
// dict with the same key order after the graph ran.
#include "engine/converter/converter.hpp"
#include "engine/py_errors.hpp"

namespace specula::engine::converter
{
    namespace
    {
        // A tuple's hash is its items': an unhashable item raises (cleared:
        // the caller refuses and CPython raises the TypeError itself).
        bool hashable_constant(const cval& key)
        {
            PyObject* o = key.obj.ptr();
            const bool simple =
                key.k == cval::kind::constant &&
                (PyLong_CheckExact(o) || PyUnicode_CheckExact(o) || PyBool_Check(o) ||
                 o == Py_None || PyFloat_CheckExact(o) || PyTuple_CheckExact(o));
            if (simple && PyObject_Hash(o) == -1)
            {
                clear_error_or_throw_interrupt();
                return false;
            }
            return simple;
        }

        bool same_cval(const cval& a, const cval& b)
        {
            if (a.k != b.k || a.arr != b.arr || a.dict != b.dict || a.src != b.src ||
                a.obj.ptr() != b.obj.ptr() || a.items.size() != b.items.size())
            {
                return false;
            }
            for (size_t i = 0; i < a.items.size(); ++i)
            {
                if (!same_cval(a.items[i], b.items[i]))
                {
                    return false;
                }
            }
            return true;
        }

        // Python's dict lookup: equal keys are the same key (1, 1.0 and True).
        int find_key(const dict_entry& d, const py::object& key)
        {
            for (size_t i = 0; i < d.keys.size(); ++i)
            {
                int eq = PyObject_RichCompareBool(d.keys[i].ptr(), key.ptr(), Py_EQ);
                if (eq < 0)
                {
                    clear_error_or_throw_interrupt();
                    return -2;
                }
                if (eq == 1)
                {
                    return static_cast<int>(i);
                }
            }
            return -1;
        }
    } // namespace

    cval converter::visit_dict(py::handle node)
    {
        m_dicts.emplace_back();
        cval d;
        d.k = cval::kind::dict;
        d.dict = static_cast<int>(m_dicts.size()) - 1;
        py::list keys = node.attr("keys");
        py::list values = node.attr("values");
        for (size_t i = 0; i < py::len(keys); ++i)
        {
            if (keys[i].is_none())
            {
                fail("**-unpacking in a dict display", node);
            }
            // Python evaluates each key before its value.
            cval key = visit_expr(keys[i]);
            dict_set(d, key, visit_expr(values[i]), node);
        }
        return d;
    }

    cval converter::dict_get(const cval& d, const cval& key, py::handle node)
    {
        if (!hashable_constant(key))
        {
            fail("dict key that is not a specialised value", node);
        }
        const dict_entry& e = m_dicts[static_cast<size_t>(d.dict)];
        int at = find_key(e, key.obj);
        if (at == -2)
        {
            fail("dict key comparison raising", node);
        }
        if (at < 0)
        {
            fail("dict key missing on this call (KeyError)", node);
        }
        return e.values[static_cast<size_t>(at)];
    }

    void converter::dict_set(const cval& d, const cval& key, const cval& value, py::handle node)
    {
        if (!hashable_constant(key))
        {
            fail("dict key that is not a specialised value", node);
        }
        dict_entry& e = m_dicts[static_cast<size_t>(d.dict)];
        if (e.escaped)
        {
            fail("changing a dict after it was stored or printed", node);
        }
        int at = find_key(e, key.obj);
        if (at == -2)
        {
            fail("dict key comparison raising", node);
        }
        if (at >= 0)
        {
            e.values[static_cast<size_t>(at)] = value; // the first key object stays, as in Python
            return;
        }
        e.keys.push_back(key.obj);
        e.values.push_back(value);
    }

    cval converter::dict_method(const cval& d, const std::string& name, const call_args& args,
                                py::handle node)
    {
        cval none;
        none.obj = py::none();
        if (name == "update" && args.positional.size() <= 1)
        {
            if (args.positional.size() == 1)
            {
                const cval& other = args.positional[0];
                if (other.k != cval::kind::dict || other.dict == d.dict)
                {
                    fail("dict.update with this argument", node);
                }
                const dict_entry src = m_dicts[static_cast<size_t>(other.dict)];
                for (size_t i = 0; i < src.keys.size(); ++i)
                {
                    cval key;
                    key.obj = src.keys[i];
                    dict_set(d, key, src.values[i], node);
                }
            }
            // Keywords follow the positional mapping, in the call's order.
            for (const auto& [kw, value] : args.keyword_order)
            {
                cval key;
                key.obj = py::str(kw);
                dict_set(d, key, value, node);
            }
            return none;
        }
        if (name == "get" && !args.positional.empty() && args.positional.size() <= 2 &&
            args.keywords.empty())
        {
            const cval& key = args.positional[0];
            if (!hashable_constant(key))
            {
                fail("dict key that is not a specialised value", node);
            }
            int at = find_key(m_dicts[static_cast<size_t>(d.dict)], key.obj);
            if (at == -2)
            {
                fail("dict key comparison raising", node); // dict.get raises it too
            }
            if (at >= 0)
            {
                return m_dicts[static_cast<size_t>(d.dict)].values[static_cast<size_t>(at)];
            }
            return args.positional.size() == 2 ? args.positional[1] : none;
        }
        fail("dict method ." + name, node);
    }

    cval converter::container_len(const cval& c, py::handle node)
    {
        cval n;
        if (c.k == cval::kind::dict)
        {
            n.obj = py::int_(m_dicts[static_cast<size_t>(c.dict)].keys.size());
            return n;
        }
        PyObject* o = c.k == cval::kind::object ? c.obj.ptr() : nullptr;
        if (o == nullptr || !(PyList_CheckExact(o) || PyTuple_CheckExact(o)))
        {
            fail("len of this object", node);
        }
        if (appended_in_this_run(c.src))
        {
            fail("len of a list appended to in this call", node);
        }
        // The length is specialised (guarded); the items are not read.
        if (m_length_guarded.insert(c.src).second)
        {
            m_spec->guards.add(make_length_guard(c.src, Py_SIZE(o), m_spec->sources[c.src].path));
        }
        n.obj = py::int_(Py_SIZE(o));
        return n;
    }

    value_plan converter::dict_plan(const cval& d, py::handle node, bool identity_visible)
    {
        dict_entry& e = m_dicts[static_cast<size_t>(d.dict)];
        if (e.escaped)
        {
            // Each plan builds its own dict: one object seen twice would be two.
            fail("a dict returned or stored twice", node);
        }
        e.escaped = true;
        value_plan p;
        p.k = value_plan::kind::dict;
        py::tuple keys(e.keys.size());
        for (size_t i = 0; i < e.keys.size(); ++i)
        {
            keys[i] = e.keys[i];
            p.items.push_back(plan_of(e.values[i], node, identity_visible));
        }
        p.constant = keys;
        return p;
    }

    // `for k in d`, `for k, v in d.items()`, `.keys()`, `.values()` over a
    // dict the code built: its (key, value) pairs as they are when the loop
    // starts. `seq` is the dict (visit_for checks the body left it alone:
    // Python raises when it changes size, and reads values as it goes).
    // False when `iter` is no such view.
    bool converter::dict_view_items(py::handle iter, cval& seq, std::vector<cval>& items)
    {
        std::string view = "keys";
        py::object dict_expr = py::reinterpret_borrow<py::object>(iter);
        if (node_type(iter) == "Call" && node_type(iter.attr("func")) == "Attribute" &&
            py::len(iter.attr("args")) == 0 && py::len(iter.attr("keywords")) == 0)
        {
            view = py::str(iter.attr("func").attr("attr"));
            if (view != "items" && view != "keys" && view != "values")
            {
                return false;
            }
            dict_expr = iter.attr("func").attr("value");
        }
        else if (node_type(iter) != "Name" && node_type(iter) != "Attribute")
        {
            return false;
        }
        cval d = visit_expr(dict_expr);
        if (d.k == cval::kind::object && PyDict_CheckExact(d.obj.ptr()))
        {
            source_dict_items(d, view, iter, items); // dict_sources.cpp
            seq = d;
            return true;
        }
        if (d.k != cval::kind::dict)
        {
            if (dict_expr.ptr() == iter.ptr())
            {
                seq = d; // not a dict: the caller iterates it as usual
                items.clear();
                return false;
            }
            fail("for over ." + view + "() of this object", iter);
        }
        const dict_entry& e = m_dicts[static_cast<size_t>(d.dict)];
        items.clear();
        for (size_t i = 0; i < e.keys.size(); ++i)
        {
            cval key;
            key.obj = e.keys[i];
            if (view == "keys")
            {
                items.push_back(key);
            }
            else if (view == "values")
            {
                items.push_back(e.values[i]);
            }
            else
            {
                cval pair;
                pair.k = cval::kind::tuple;
                pair.items = {key, e.values[i]};
                items.push_back(pair);
            }
        }
        seq = d;
        return true;
    }

    bool converter::appended_in_this_run(int src) const
    {
        for (const effect_plan& e : m_spec->effects)
        {
            if (e.k == effect_plan::kind::list_append && e.target == src)
            {
                return true;
            }
        }
        return false;
    }

    bool converter::dict_changed(const dict_entry& before, int dict) const
    {
        const dict_entry& now = m_dicts[static_cast<size_t>(dict)];
        if (now.keys.size() != before.keys.size())
        {
            return true;
        }
        for (size_t i = 0; i < now.values.size(); ++i)
        {
            if (!same_cval(now.values[i], before.values[i]))
            {
                return true;
            }
        }
        return false;
    }
} // namespace specula::engine::converter
