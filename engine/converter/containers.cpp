// Dicts the converted code builds itself ({}, {"W": a}, d[t] = x, d.update(...)),
// keyed by specialised values such as unrolled loop indices (min-char-rnn keeps
// its time steps in dicts). Keys are known at conversion, so a dict is a list of
// (key, value) pairs in insertion order; returning or storing it builds a new
// dict with the same key order after the graph ran.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        bool hashable_constant(const cval& key)
        {
            PyObject* o = key.obj.ptr();
            return key.k == cval::kind::constant &&
                   (PyLong_CheckExact(o) || PyUnicode_CheckExact(o) || PyBool_Check(o) ||
                    o == Py_None || PyFloat_CheckExact(o) || PyTuple_CheckExact(o)) &&
                   PyObject_Hash(o) != -1;
        }

        // Python's dict lookup: equal keys are the same key (1, 1.0 and True).
        int find_key(const dict_entry& d, const py::object& key)
        {
            for (size_t i = 0; i < d.keys.size(); ++i)
            {
                int eq = PyObject_RichCompareBool(d.keys[i].ptr(), key.ptr(), Py_EQ);
                if (eq < 0)
                {
                    PyErr_Clear();
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
        for (const effect_plan& e : m_spec->effects)
        {
            if (e.k == effect_plan::kind::list_append && e.target == c.src)
            {
                fail("len of a list appended to in this call", node);
            }
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
} // namespace specula::engine::converter
