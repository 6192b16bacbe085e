// Iterating a dict the function is given (an argument, a global, an
// attribute): `for k in d`, `for k, v in d.items()`, `.keys()`, `.values()`,
// unrolled over its keys as they are at conversion. A dict_keys guard
// re-checks the keys, in order, at every call (another key set or order is a
// miss: CPython runs the call, the region recompiles for the new keys); each
// value is an item source `d[k]`, guarded as any value. Keys must be exact
// str or int, whose comparison runs no user code. A dict set earlier in the
// run, or by the loop body (also through another name), is refused: the keys
// would no longer be the guarded ones, and Python reads each value when it
// reaches it.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    void converter::source_dict_items(const cval& d, const std::string& view, py::handle iter,
                                      std::vector<cval>& items)
    {
        PyObject* dict = d.obj.ptr();
        py::tuple keys(py::reinterpret_borrow<py::dict>(dict).attr("keys")());
        if (static_cast<int>(py::len(keys)) > m_config.max_unrolled_statements)
        {
            fail("for over a dict of " + std::to_string(py::len(keys)) + " keys", iter);
        }
        for (py::handle k : keys)
        {
            if (!PyUnicode_CheckExact(k.ptr()) && !PyLong_CheckExact(k.ptr()))
            {
                fail("for over a dict with keys other than str and int", iter);
            }
        }
        for (const auto& written : m_item_writes)
        {
            if (aliases_written_dict(d.src, dict, written.first))
            {
                // The guard sees the keys before the run, Python iterates them after.
                fail("for over a dict set earlier in the same run", iter);
            }
        }
        if (m_dict_keys_guarded.insert(d.src).second)
        {
            m_spec->guards.add(make_dict_keys_guard(d.src, dict, m_spec->sources[d.src].path));
        }
        items.clear();
        for (py::handle k : keys)
        {
            cval key;
            key.obj = py::reinterpret_borrow<py::object>(k);
            if (view == "keys")
            {
                items.push_back(key);
                continue;
            }
            cval value = read_item(d, key.obj, iter);
            if (view == "values")
            {
                items.push_back(value);
                continue;
            }
            cval pair;
            pair.k = cval::kind::tuple;
            pair.items = {key, value};
            items.push_back(pair);
        }
    }

    // A container set earlier in the run (m_item_writes) is the iterated
    // dict when it is the same object: Python would iterate the keys as
    // they are after the write. Another dict gets a `distinct` guard.
    bool converter::aliases_written_dict(int src, PyObject* dict, int writer)
    {
        auto found = m_item_writes.find(writer);
        if (found == m_item_writes.end() || found->second.empty())
        {
            return false;
        }
        PyObject* other = found->second.front().source_object.ptr();
        if (writer == src || other == dict)
        {
            return true;
        }
        if (Py_TYPE(other) == Py_TYPE(dict) && m_distinct_containers.insert({writer, src}).second)
        {
            m_spec->guards.add(make_distinct_guard(writer, src,
                                                   m_spec->sources[writer].path + " is not " +
                                                       m_spec->sources[src].path));
        }
        return false;
    }

    // Whether the converted code set an item of the dict source `src` (or
    // of the same dict through another name) since `effects_before`.
    bool converter::source_dict_written(int src, PyObject* dict, size_t effects_before)
    {
        for (size_t i = effects_before; i < m_spec->effects.size(); ++i)
        {
            const effect_plan& e = m_spec->effects[i];
            const bool item_write =
                e.k == effect_plan::kind::set_item || e.k == effect_plan::kind::set_computed_item;
            if (item_write && aliases_written_dict(src, dict, e.target))
            {
                return true;
            }
        }
        return false;
    }
} // namespace specula::engine::converter
