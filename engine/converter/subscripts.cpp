// Subscripts outside array indexing (indexing.cpp): items of lists, tuples
// and dicts read through item sources (re-read by the guards at every call),
// tuple items, str slices and keyed items, computed items and slices, and the
// dispatch to NumPy indexing.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        // Whether a dict holds a key of a class written in Python: looking
        // up a key of equal hash runs its __eq__, once in CPython's lookup,
        // so the converter's own lookup (and its guards') must not.
        bool has_python_class_key(PyObject* dict)
        {
            Py_ssize_t pos = 0;
            PyObject* key = nullptr;   // borrowed
            PyObject* value = nullptr; // borrowed
            while (PyDict_Next(dict, &pos, &key, &value))
            {
                if (PyType_HasFeature(Py_TYPE(key), Py_TPFLAGS_HEAPTYPE))
                {
                    return true;
                }
            }
            return false;
        }
    } // namespace

    // An item of a list/tuple/dict source, read through an item source so the
    // guards re-read it at every call (arg -> item 0 -> item 1).
    cval converter::read_item(const cval& container, const py::object& key, py::handle node)
    {
        PyObject* c = container.k == cval::kind::object ? container.obj.ptr() : nullptr;
        if (c == nullptr ||
            !(PyDict_CheckExact(c) || PyList_CheckExact(c) || PyTuple_CheckExact(c)))
        {
            fail("indexing this object", node);
        }
        std::string path =
            m_spec->sources[container.src].path + "[" + std::string(py::str(py::repr(key))) + "]";
        cval written;
        cval as_key;
        as_key.obj = key;
        if (written_item(container, key, int_expr_of(as_key), node, written))
        {
            return written;
        }
        if (PyDict_CheckExact(c) && has_python_class_key(c))
        {
            fail("item of a dict holding a key of a Python class (its __eq__ would run in the "
                 "engine's lookup)",
                 node);
        }
        source s{source_kind::item, container.src, 0, key, path};
        if (!PyDict_CheckExact(c))
        {
            int overflow = 0;
            if (PyLong_CheckExact(key.ptr()) &&
                (PyLong_AsLongLongAndOverflow(key.ptr(), &overflow) < 0 || overflow != 0))
            {
                // Counted from the end of a list whose length may change:
                // resolved at run time, as a counter's index is.
                cval index;
                index.obj = key;
                return read_computed_item(container, index, node);
            }
            if (!PyLong_CheckExact(key.ptr()))
            {
                fail("list index that is not a non-negative int", node);
            }
            s.index = static_cast<int>(PyLong_AsLongLong(key.ptr()));
            // The length decides whether the item exists: guard it through
            // the item's own guard (a missing item fails resolution).
        }
        int src = m_spec->sources.add(s);
        owned_refs owned;
        std::vector<PyObject*> values(static_cast<size_t>(m_spec->sources.size()), nullptr);
        values[static_cast<size_t>(container.src)] = c;
        PyObject* item = m_spec->sources.resolve(src, m_frame, values, owned);
        if (item == nullptr)
        {
            fail("missing item " + path, node);
        }
        return read_source(src, item);
    }

    cval converter::visit_subscript(py::handle node)
    {
        cval container = visit_expr(node.attr("value"));
        py::handle index = node.attr("slice");
        if (container.k == cval::kind::constant && PyUnicode_CheckExact(container.obj.ptr()) &&
            node_type(index) == "Slice")
        {
            return str_slice(container, index, node); // str_slices.cpp
        }
        if (container.k == cval::kind::constant || container.k == cval::kind::tuple ||
            container.k == cval::kind::object)
        {
            cval key = visit_expr(index);
            if (key.k == cval::kind::object)
            {
                return read_keyed_item(container, key, node); // str_slices.cpp
            }
            if (key.k != cval::kind::constant)
            {
                return read_computed_item(container, key, node);
            }
            if (container.k == cval::kind::tuple && PyLong_CheckExact(key.obj.ptr()))
            {
                long long i = PyLong_AsLongLong(key.obj.ptr());
                long long n = static_cast<long long>(container.items.size());
                if (i < -n || i >= n)
                {
                    fail("index out of range", node);
                }
                return container.items[static_cast<size_t>(i < 0 ? i + n : i)];
            }
            if (container.k == cval::kind::constant)
            {
                return fold(node, container, key, "getitem");
            }
            return read_item(container, key.obj, node);
        }
        if (container.k == cval::kind::dict)
        {
            return dict_get(container, visit_expr(index), node);
        }
        cval sliced;
        if (read_computed_row(container, index, sliced))
        {
            return sliced;
        }
        if (read_computed_slice(container, index, node, sliced))
        {
            return sliced;
        }
        return index_array(container, node);
    }
} // namespace specula::engine::converter
