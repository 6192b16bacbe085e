// A comprehension over a str sliced at a loop counter, mapped through a dict:
// min-char-rnn's `[char_to_ix[ch] for ch in data[p:p + seq_length]]`. The str
// is a guarded value (so its length is known), the slice's bounds are relaxed
// ints (int_expr), and one int_predicate guard says the slice has exactly the
// length seen at conversion. Each character is a computed_item source of the
// str (the one-character str CPython's `data[p + i]` gives), and each
// `char_to_ix[ch]` a keyed_item source: the dict read at that character by
// the runner, before the run, as CPython reads it, under a dict_keys guard
// (exact str/int keys: the lookup runs no user code, and a key added or
// removed is a guard miss). The values the dict holds are relaxed ints, so
// the graph does not depend on the text, only on the slice's length.
//
// A character is only ever a key: the comprehension's target may appear
// nowhere else (a comparison or a print of it would need its value, which
// only the run knows), so such a comprehension is refused before it starts.
#include "engine/converter/converter.hpp"
#include "engine/py_errors.hpp"

namespace specula::engine::converter
{
    namespace
    {
        // The dict_keys guard walks every key at every run.
        constexpr Py_ssize_t max_guarded_keys = 1024;

        // Whether every use of `name` under `root` is the key of a subscript.
        bool used_only_as_key(py::handle root, const std::string& name)
        {
            py::module_ ast = py::module_::import("ast");
            std::set<PyObject*> keys;
            std::vector<PyObject*> uses;
            for (py::handle n : ast.attr("walk")(root))
            {
                const std::string kind = node_type(n);
                if (kind == "Subscript" && node_type(n.attr("slice")) == "Name")
                {
                    keys.insert(n.attr("slice").ptr());
                }
                if (kind == "Name" && std::string(py::str(n.attr("id"))) == name)
                {
                    uses.push_back(n.ptr());
                }
            }
            for (PyObject* u : uses)
            {
                if (keys.count(u) == 0)
                {
                    return false;
                }
            }
            return true;
        }

        py::object bound_value(const cval& v)
        {
            return v.k == cval::kind::constant ? v.obj : py::object();
        }
    } // namespace

    void converter::note_run_time_str_slice(py::handle clause, py::handle elt)
    {
        m_run_time_str_slice = nullptr;
        py::handle target = clause.attr("target");
        py::handle iter = clause.attr("iter");
        if (node_type(target) != "Name" || node_type(iter) != "Subscript" ||
            node_type(iter.attr("slice")) != "Slice")
        {
            return;
        }
        const std::string name = py::str(target.attr("id"));
        for (py::handle condition : clause.attr("ifs"))
        {
            if (!used_only_as_key(condition, name))
            {
                return;
            }
        }
        if (used_only_as_key(elt, name))
        {
            m_run_time_str_slice = iter.ptr();
        }
    }

    cval converter::str_slice(const cval& s, py::handle index, py::handle node)
    {
        if (!index.attr("step").is_none())
        {
            fail("a str slice with a step", node);
        }
        PyObject* str = s.obj.ptr();
        const std::int64_t length = PyUnicode_GET_LENGTH(str);
        cval lo;
        cval hi;
        lo.obj = py::int_(0);
        hi.obj = py::int_(length);
        if (!index.attr("lower").is_none())
        {
            lo = visit_expr(index.attr("lower"));
        }
        if (!index.attr("upper").is_none())
        {
            hi = visit_expr(index.attr("upper"));
        }
        py::object lo_value = bound_value(lo);
        py::object hi_value = bound_value(hi);
        if (lo_value && hi_value)
        {
            // Known bounds: the slice is a value like any other.
            py::object key = py::reinterpret_steal<py::object>(
                PySlice_New(lo_value.ptr(), hi_value.ptr(), nullptr)); // new reference
            cval out;
            out.obj = py::reinterpret_steal<py::object>(PyObject_GetItem(str, key.ptr()));
            if (!out.obj)
            {
                throw py::error_already_set();
            }
            return out;
        }
        return run_time_str_slice(s, int_expr_of(lo), int_expr_of(hi), node);
    }

    cval converter::run_time_str_slice(const cval& s, const int_expr_ptr& lo,
                                       const int_expr_ptr& hi, py::handle node)
    {
        if (!lo || !hi)
        {
            fail("a str slice whose bounds are not Python ints the guards compute", node);
        }
        if (node.ptr() != m_run_time_str_slice || s.src < 0)
        {
            fail("a str slice at a loop counter (converted only as the iterable of a "
                 "comprehension that uses each character as a dict key)",
                 node);
        }
        PyObject* str = s.obj.ptr();
        const std::int64_t length = PyUnicode_GET_LENGTH(str);
        std::int64_t first = 0;
        std::int64_t last = 0;
        if (!evaluate(*lo, nullptr, first) || !evaluate(*hi, nullptr, last) || first < 0 ||
            first > last || last > length)
        {
            fail("a str slice reaching beyond the str's ends", node);
        }
        const std::int64_t n = last - first;
        if (n > m_config.max_unrolled_statements)
        {
            fail("a comprehension over " + std::to_string(n) + " characters", node);
        }
        // Exactly n characters from `lo` on: CPython's clamping never applies.
        int_expr_ptr inside =
            int_binary("and", int_binary(">=", lo, int_constant(0)),
                       int_binary("and", int_binary("==", int_binary("-", hi, lo), int_constant(n)),
                                  int_binary("<=", hi, int_constant(length))));
        m_spec->guards.add(make_int_predicate_guard(inside, true));
        cval out;
        out.k = cval::kind::tuple; // consumed at once by the comprehension
        for (std::int64_t i = 0; i < n; ++i)
        {
            int_expr_ptr at = int_binary("+", lo, int_constant(i));
            std::string path = m_spec->sources[s.src].path + "[" + at->text + "]";
            cval c;
            c.k = cval::kind::object;
            // Always an exact one-character str (the parent is a guarded str).
            c.src = m_spec->sources.add(
                source{source_kind::computed_item, s.src, 0, py::none(), path}, at);
            c.obj = py::reinterpret_steal<py::object>(
                PyUnicode_Substring(str, first + i, first + i + 1)); // new reference
            if (!c.obj)
            {
                throw py::error_already_set();
            }
            out.items.push_back(c);
        }
        return out;
    }

    // The characters of a str known at conversion (a guarded value or a
    // literal, sliced at known bounds), one constant each.
    bool converter::str_items(const cval& s, std::vector<cval>& items, py::handle node)
    {
        if (s.k != cval::kind::constant || !PyUnicode_CheckExact(s.obj.ptr()))
        {
            return false;
        }
        PyObject* str = s.obj.ptr();
        const Py_ssize_t n = PyUnicode_GET_LENGTH(str);
        if (n > m_config.max_unrolled_statements)
        {
            fail("for over a str of " + std::to_string(n) + " characters", node);
        }
        items.clear();
        for (Py_ssize_t i = 0; i < n; ++i)
        {
            cval c;
            c.obj = py::reinterpret_steal<py::object>(PyUnicode_Substring(str, i, i + 1));
            if (!c.obj)
            {
                throw py::error_already_set();
            }
            items.push_back(c);
        }
        return true;
    }

    cval converter::read_keyed_item(const cval& container, const cval& key, py::handle node)
    {
        PyObject* d = container.k == cval::kind::object ? container.obj.ptr() : nullptr;
        if (d == nullptr || !PyDict_CheckExact(d) || container.src < 0)
        {
            fail("indexing at a key only the run knows (other than a dict source's)", node);
        }
        if (key.src < 0 || !PyUnicode_CheckExact(key.obj.ptr()))
        {
            fail("a dict key only the run knows, other than a str's character", node);
        }
        for (const auto& written : m_item_writes)
        {
            if (aliases_written_dict(container.src, d, written.first))
            {
                // The runner reads the item before the run: the write would be missed.
                fail("a dict read at a run-time key after an item of it was set", node);
            }
        }
        guard_keys_of(container, node);
        PyObject* item = PyDict_GetItemWithError(d, key.obj.ptr()); // borrowed
        if (item == nullptr)
        {
            clear_error_or_throw_interrupt();
            fail("dict key missing (CPython raises the KeyError)", node);
        }
        std::string path =
            m_spec->sources[container.src].path + "[" + m_spec->sources[key.src].path + "]";
        int src = m_spec->sources.add(
            source{source_kind::keyed_item, container.src, key.src, py::none(), path});
        // A value chosen by the text changes with the counter: a graph input from the start.
        m_relaxed_sources.insert(src);
        return read_source(src, item);
    }

    // A dict_keys guard: the keys are exact str or int (no user code compares
    // them with the run's key) and any key added or removed is a guard miss.
    // It walks every key at every run, hence the bound on their number.
    void converter::guard_keys_of(const cval& container, py::handle node)
    {
        PyObject* d = container.obj.ptr();
        const Py_ssize_t n = PyDict_GET_SIZE(d);
        if (n > max_guarded_keys)
        {
            fail("a dict of " + std::to_string(n) + " keys read at a run-time key", node);
        }
        Py_ssize_t pos = 0;
        PyObject* k = nullptr; // borrowed
        while (PyDict_Next(d, &pos, &k, nullptr))
        {
            if (!PyUnicode_CheckExact(k) && !PyLong_CheckExact(k))
            {
                fail("a dict with keys other than str and int read at a run-time key", node);
            }
        }
        if (m_dict_keys_guarded.insert(container.src).second)
        {
            m_spec->guards.add(
                make_dict_keys_guard(container.src, d, m_spec->sources[container.src].path));
        }
    }
} // namespace specula::engine::converter
