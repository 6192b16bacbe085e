// Items set in lists and dicts the converted code reads from its sources
// (`hs[t + 1] = h`, `d[t] = x`, `hs[-1] = np.copy(h0)`). The index may be a
// relaxed loop counter: the guards compute it (int_expr) as they do for
// reads, and the write is a buffered effect committed in program order, so
// a dict gets a new key or an overwritten value exactly as in CPython. A
// list index out of range is decided by a guard: CPython then runs the
// iteration and raises the IndexError.
//
// Reads of an item of a container written earlier in the same run see the
// written value. Whether a read and a write name the same item can depend
// on the counter (`hs[t]` after `hs[-1] = ...`): an int_predicate guard
// keys the specialisation on that outcome.
#include "engine/converter/converter.hpp"
#include "engine/py_errors.hpp"

namespace specula::engine::converter
{
    namespace
    {
        // Keys of dicts that can never equal an int.
        bool never_an_int(PyObject* key)
        {
            return PyUnicode_CheckExact(key) || PyBytes_CheckExact(key) || key == Py_None ||
                   PyTuple_CheckExact(key);
        }

        bool hashable_key(PyObject* key)
        {
            const bool simple = PyLong_CheckExact(key) || PyUnicode_CheckExact(key) ||
                                PyBool_Check(key) || key == Py_None || PyFloat_CheckExact(key) ||
                                PyTuple_CheckExact(key);
            if (!simple)
            {
                return false;
            }
            if (PyObject_Hash(key) == -1)
            {
                // A tuple with an unhashable item: refused, CPython raises.
                clear_error_or_throw_interrupt();
                return false;
            }
            return true;
        }
    } // namespace

    void converter::assign_container_item(const cval& container, const cval& key, const cval& value,
                                          py::handle target)
    {
        PyObject* c = container.obj.ptr();
        const bool is_list = PyList_CheckExact(c);
        int_expr_ptr index = int_expr_of(key);
        if (is_list && m_lazily_read_sources.count(container.src))
        {
            fail("list item assignment to a list zip/enumerate/reversed read", target);
        }
        if (key.k != cval::kind::constant && !index)
        {
            fail("container item assignment with a computed key", target);
        }
        if (key.k == cval::kind::constant && !hashable_key(key.obj.ptr()))
        {
            fail("container item assignment with this key", target);
        }
        if (is_list)
        {
            if (!index)
            {
                fail("list index that is not an int", target);
            }
            if (appended_in_this_run(container.src)) // the guards see the length before it
            {
                fail("a list item set after list.append in the same run", target);
            }
            guard_list_index(container, index, "list assignment index out of range", target);
        }
        else if (key.k != cval::kind::constant)
        {
            // The commit computes the key again: it must be computable.
            std::int64_t seen = 0;
            int_expr_ptr computable = int_binary("==", index, index);
            if (!evaluate(*computable, nullptr, seen))
            {
                fail("a dict key CPython does not compute exactly here", target);
            }
            m_spec->guards.add(make_int_predicate_guard(computable, true));
        }
        effect_plan e;
        e.target = container.src;
        if (key.k == cval::kind::constant)
        {
            e.k = effect_plan::kind::set_item;
            e.key = key.obj;
        }
        else
        {
            e.k = effect_plan::kind::set_computed_item;
            e.index = index;
        }
        e.value = plan_of(value, target);
        m_spec->effects.push_back(e);
        m_item_writes[container.src].push_back(
            {key.k == cval::kind::constant ? key.obj : py::object(), index, value, container.obj});
        // Keeps "did this run change the heap" checks (branches, loops) true.
        m_heap_writes[m_spec->sources[container.src].path + "[" +
                      (index ? index->text : std::string(py::str(py::repr(key.obj)))) + "]"] =
            value;
    }

    void converter::guard_list_index(const cval& container, const int_expr_ptr& index,
                                     const std::string& error, py::handle node)
    {
        const std::string& path = m_spec->sources[container.src].path;
        int_expr_ptr n = int_length(container.src, container.obj.ptr(), path);
        int_expr_ptr in_range =
            int_binary("and", int_binary(">=", index, int_binary("-", int_constant(0), n)),
                       int_binary("<", index, n));
        std::int64_t inside = 0;
        if (!evaluate(*in_range, nullptr, inside))
        {
            fail("a list index CPython does not compute exactly here", node);
        }
        m_spec->guards.add(make_int_predicate_guard(in_range, inside != 0));
        if (inside == 0)
        {
            fail(error + " (CPython raises the IndexError)", node);
        }
    }

    // Python's position of `index` in a list of length `n`: negative
    // indices count from the end.
    int_expr_ptr converter::list_position(const int_expr_ptr& index, const cval& container)
    {
        int_expr_ptr n =
            int_length(container.src, container.obj.ptr(), m_spec->sources[container.src].path);
        return int_binary("+", index, int_binary("*", int_binary("<", index, int_constant(0)), n));
    }

    bool converter::same_item(const cval& container, const item_write& w, const py::object& key,
                              const int_expr_ptr& index, py::handle node)
    {
        if (w.index && index)
        {
            if (w.index->text == index->text)
            {
                return true; // the same expression of the same sources
            }
            const bool is_list = PyList_CheckExact(container.obj.ptr());
            int_expr_ptr eq = is_list ? int_binary("==", list_position(w.index, container),
                                                   list_position(index, container))
                                      : int_binary("==", w.index, index);
            std::int64_t r = 0;
            if (!evaluate(*eq, nullptr, r))
            {
                fail("an item index CPython does not compute exactly here", node);
            }
            m_spec->guards.add(make_int_predicate_guard(eq, r != 0));
            return r != 0;
        }
        if (!w.index && !index)
        {
            int eq = PyObject_RichCompareBool(w.key.ptr(), key.ptr(), Py_EQ);
            if (eq < 0)
            {
                clear_error_or_throw_interrupt();
                fail("dict key comparison raising", node);
            }
            return eq == 1;
        }
        PyObject* other = w.index ? key.ptr() : w.key.ptr();
        if (other != nullptr && never_an_int(other))
        {
            return false;
        }
        fail("a dict key of another type next to an int key set in the same run", node);
    }

    bool converter::written_item(const cval& container, const py::object& key,
                                 const int_expr_ptr& index, py::handle node, cval& out)
    {
        for (const auto& [src, writes] : m_item_writes)
        {
            if (src == container.src || writes.empty())
            {
                continue;
            }
            // Two paths to one container would hide the write from the read.
            PyObject* other = writes.front().source_object.ptr();
            if (other == container.obj.ptr())
            {
                fail("a container set and read through two different names", node);
            }
            if (Py_TYPE(other) == Py_TYPE(container.obj.ptr()) &&
                m_distinct_containers.insert({src, container.src}).second)
            {
                m_spec->guards.add(make_distinct_guard(src, container.src,
                                                       m_spec->sources[src].path + " is not " +
                                                           m_spec->sources[container.src].path));
            }
        }
        auto found = m_item_writes.find(container.src);
        if (found == m_item_writes.end())
        {
            return false;
        }
        for (auto w = found->second.rbegin(); w != found->second.rend(); ++w)
        {
            if (same_item(container, *w, key, index, node))
            {
                out = w->value;
                return true;
            }
        }
        return false;
    }
} // namespace specula::engine::converter
