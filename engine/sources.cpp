#include "engine/sources.hpp"

#include "engine/numpy_api.hpp"
#include "engine/py_errors.hpp"

namespace specula::engine
{
    int source_table::add(source s, int_expr_ptr index_expr, int_expr_ptr stop_expr)
    {
        for (size_t i = 0; i < m_sources.size(); ++i)
        {
            if (m_sources[i].path == s.path)
            {
                return static_cast<int>(i);
            }
        }
        m_sources.push_back(std::move(s));
        m_index_exprs.push_back(std::move(index_expr));
        m_stop_exprs.push_back(std::move(stop_expr));
        return static_cast<int>(m_sources.size()) - 1;
    }

    std::string global_path(const std::string& name)
    {
        return "G[" + name + "]";
    }

    namespace
    {
        // Borrowed dict lookup. The dict may hold a user key whose hash
        // equals `key`'s: its __eq__ runs, and an interrupt raised in it is
        // left set (py_errors.hpp); no other exception is.
        PyObject* dict_lookup(PyObject* dict, PyObject* key)
        {
            if (dict == nullptr || !PyDict_Check(dict))
            {
                return nullptr;
            }
            PyObject* found = PyDict_GetItemWithError(dict, key);
            if (found == nullptr)
            {
                clear_error_unless_interrupt();
            }
            return found;
        }

        // Borrowed container item, or nullptr.
        PyObject* item_of(PyObject* container, const source& s)
        {
            if (PyList_CheckExact(container))
            {
                return s.index < PyList_GET_SIZE(container) ? PyList_GET_ITEM(container, s.index)
                                                            : nullptr;
            }
            if (PyTuple_CheckExact(container))
            {
                return s.index < PyTuple_GET_SIZE(container) ? PyTuple_GET_ITEM(container, s.index)
                                                             : nullptr;
            }
            if (PyDict_CheckExact(container))
            {
                return dict_lookup(container, s.key.ptr());
            }
            return nullptr;
        }

        // s[i] of an exact str, Python's negative index wrapping: a new
        // one-character str (CPython's cached one for Latin-1) kept by
        // `owned`, or nullptr out of range.
        PyObject* str_item(PyObject* s, std::int64_t i, owned_refs& owned)
        {
            const std::int64_t n = PyUnicode_GET_LENGTH(s);
            i = i < 0 ? i + n : i;
            if (i < 0 || i >= n)
            {
                return nullptr;
            }
            PyObject* c = owned.keep(PyUnicode_Substring(s, i, i + 1)); // new reference
            if (c == nullptr)
            {
                PyErr_Clear();
            }
            return c;
        }

        // Borrowed dict[key] for an exact str or int key (hashing it runs no
        // user code), or nullptr.
        PyObject* keyed_item_of(PyObject* dict, PyObject* key)
        {
            if (dict == nullptr || key == nullptr || !PyDict_CheckExact(dict) ||
                !(PyUnicode_CheckExact(key) || PyLong_CheckExact(key)))
            {
                return nullptr;
            }
            return dict_lookup(dict, key);
        }

        // NumPy's view of row i (negative from the end) of an exact ndarray of
        // 2 or more dims, kept by `owned`; nullptr out of range (CPython
        // raises the IndexError). Its basic indexing runs no user code.
        PyObject* row_view(PyObject* array, std::int64_t i, owned_refs& owned)
        {
            auto* a = reinterpret_cast<PyArrayObject*>(array);
            if (PyArray_NDIM(a) < 2)
            {
                return nullptr;
            }
            const std::int64_t n = PyArray_DIM(a, 0);
            i = i < 0 ? i + n : i;
            if (i < 0 || i >= n)
            {
                return nullptr;
            }
            PyObject* view = owned.keep(PySequence_GetItem(array, i)); // new reference, kept
            if (view == nullptr)
            {
                clear_error_unless_interrupt();
            }
            return view;
        }

        // Item of a list/tuple at a computed index (or of a dict at a
        // computed int key), or nullptr (out of range: CPython raises the
        // IndexError). Borrowed, except a str's character: a new reference
        // kept by `owned`.
        PyObject* computed_item_of(PyObject* container, const int_expr& index,
                                   const std::vector<PyObject*>& values, owned_refs& owned)
        {
            std::int64_t i = 0;
            if (container == nullptr || !evaluate(index, values.data(), i))
            {
                return nullptr;
            }
            if (PyDict_CheckExact(container))
            {
                // An int key (`hs[t - 1]` on a dict); missing: CPython raises
                // the KeyError.
                py::object key = py::reinterpret_steal<py::object>(PyLong_FromLongLong(i));
                if (!key)
                {
                    PyErr_Clear();
                    return nullptr;
                }
                return dict_lookup(container, key.ptr());
            }
            if (PyUnicode_CheckExact(container))
            {
                return str_item(container, i, owned);
            }
            if (PyArray_CheckExact(container))
            {
                return row_view(container, i, owned);
            }
            if (!(PyList_CheckExact(container) || PyTuple_CheckExact(container)))
            {
                return nullptr;
            }
            const std::int64_t n = Py_SIZE(container);
            i = i < 0 ? i + n : i;
            if (i < 0 || i >= n)
            {
                return nullptr;
            }
            return PySequence_Fast_ITEMS(container)[i];
        }

        // A bound of a computed slice: Python's None when absent, else the
        // evaluated int (new reference), or nullptr when not exact here.
        PyObject* slice_bound(const int_expr* e, const std::vector<PyObject*>& values)
        {
            if (e == nullptr)
            {
                Py_INCREF(Py_None);
                return Py_None;
            }
            std::int64_t v = 0;
            return evaluate(*e, values.data(), v) ? PyLong_FromLongLong(v) : nullptr;
        }

        // The key of parent[:, ..., start:stop:step] (new reference): the
        // slice alone along the first axis, else a tuple with `axis` full
        // slices first.
        PyObject* computed_slice_key(int axis, PyObject* lo, PyObject* hi, PyObject* step)
        {
            PyObject* last = PySlice_New(lo, hi, step); // new reference
            if (last == nullptr || axis == 0)
            {
                return last;
            }
            PyObject* key = PyTuple_New(axis + 1); // new reference; steals its items
            if (key == nullptr)
            {
                Py_DECREF(last);
                return nullptr;
            }
            for (int i = 0; i < axis; ++i)
            {
                PyObject* full = PySlice_New(nullptr, nullptr, nullptr);
                if (full == nullptr)
                {
                    Py_DECREF(last);
                    Py_DECREF(key);
                    return nullptr;
                }
                PyTuple_SET_ITEM(key, i, full);
            }
            PyTuple_SET_ITEM(key, axis, last);
            return key;
        }

        // parent[..., start:stop:step] made by NumPy itself (a new view, kept by
        // `owned`), or nullptr: only an exact ndarray, whose basic slicing
        // runs no user code and cannot fail for int bounds.
        PyObject* computed_slice_of(PyObject* parent, const source& s, const int_expr* start,
                                    const int_expr* stop, const std::vector<PyObject*>& values,
                                    owned_refs& owned)
        {
            if (parent == nullptr || !PyArray_CheckExact(parent) ||
                PyArray_NDIM(reinterpret_cast<PyArrayObject*>(parent)) <= s.index)
            {
                return nullptr;
            }
            py::object lo = py::reinterpret_steal<py::object>(slice_bound(start, values));
            py::object hi = py::reinterpret_steal<py::object>(slice_bound(stop, values));
            if (!lo || !hi)
            {
                return nullptr;
            }
            // New reference: the slice object, then the view.
            py::object key = py::reinterpret_steal<py::object>(
                computed_slice_key(s.index, lo.ptr(), hi.ptr(), s.key.ptr()));
            PyObject* view = key ? owned.keep(PyObject_GetItem(parent, key.ptr())) : nullptr;
            if (view == nullptr)
            {
                clear_error_unless_interrupt();
            }
            return view;
        }

        // Borrowed closure cell content, or nullptr.
        PyObject* closure_of(PyObject* function, int index)
        {
            if (function == nullptr || !PyFunction_Check(function))
            {
                return nullptr;
            }
            PyObject* cells = PyFunction_GET_CLOSURE(function);
            if (cells == nullptr || index >= PyTuple_GET_SIZE(cells))
            {
                return nullptr;
            }
            return PyCell_GET(PyTuple_GET_ITEM(cells, index));
        }

        // Borrowed (kept by `owned`) function or property that `parent.key`
        // would use, or nullptr. Only types with the generic attribute lookup:
        // a custom __getattribute__ set on the class later resolves to nullptr.
        PyObject* class_attr_of(PyObject* parent, PyObject* key, owned_refs& owned)
        {
            if (parent == nullptr || Py_TYPE(parent)->tp_getattro != PyObject_GenericGetAttr)
            {
                return nullptr;
            }
            PyObject* found = _PyType_Lookup(Py_TYPE(parent), key); // borrowed, no exception
            if (found != nullptr && Py_IS_TYPE(found, &PyProperty_Type))
            {
                return found; // a data descriptor: wins over the instance dict
            }
            if (found == nullptr || !PyFunction_Check(found))
            {
                return nullptr;
            }
            // A function is a non-data descriptor: an instance attribute of the
            // same name shadows it. Binding it runs no Python code, but the
            // instance dict may hold a user key that compares with `key`.
            PyObject* bound = owned.keep(PyObject_GenericGetAttr(parent, key)); // new reference
            if (bound == nullptr)
            {
                clear_error_unless_interrupt();
                return nullptr;
            }
            if (!PyMethod_Check(bound) || PyMethod_GET_SELF(bound) != parent ||
                PyMethod_GET_FUNCTION(bound) != found)
            {
                return nullptr;
            }
            return found;
        }

        // A descriptor whose __get__ is Python code: a property, or a class
        // written in Python. The C ones (a function's __code__, slots, methods
        // binding) run none.
        bool runs_python_code(PyObject* descriptor)
        {
            PyTypeObject* t = Py_TYPE(descriptor);
            return t->tp_descr_get != nullptr &&
                   (PyObject_TypeCheck(descriptor, &PyProperty_Type) ||
                    PyType_HasFeature(t, Py_TPFLAGS_HEAPTYPE));
        }

        // `parent.key` as a plain instance (or plain class) attribute, kept by
        // `owned`, or nullptr. The converter only reads attributes no Python
        // descriptor of the class handles; a class that gained one since (a
        // property, a Python __get__) or a custom __getattribute__ would run
        // Python code here and again in CPython after the miss: the getter's
        // effects twice, a KeyboardInterrupt raised in it lost. They resolve
        // to nullptr instead, and CPython makes the one real lookup.
        PyObject* plain_attr_of(PyObject* parent, PyObject* key, owned_refs& owned)
        {
            if (parent == nullptr || Py_TYPE(parent)->tp_getattro != PyObject_GenericGetAttr)
            {
                return nullptr;
            }
            PyObject* in_type = _PyType_Lookup(Py_TYPE(parent), key); // borrowed, no exception
            if (in_type != nullptr && runs_python_code(in_type))
            {
                return nullptr;
            }
            PyObject* value = owned.keep(PyObject_GenericGetAttr(parent, key)); // new reference
            if (value == nullptr)
            {
                // An AttributeError (no Python code ran), unless the instance
                // dict holds a user key that compared equal to `key`.
                clear_error_unless_interrupt();
            }
            return value;
        }
    } // namespace

    PyObject* source_table::resolve(int i, const frame_hook::frame_view& frame,
                                    const std::vector<PyObject*>& values, owned_refs& owned) const
    {
        const source& s = m_sources[static_cast<size_t>(i)];
        PyObject* parent = s.parent >= 0 ? values[static_cast<size_t>(s.parent)] : nullptr;
        switch (s.kind)
        {
        case source_kind::arg:
            return frame.locals[s.index];
        case source_kind::global:
        {
            PyObject* found = dict_lookup(frame.globals, s.key.ptr());
            return found != nullptr || PyErr_Occurred() ? found
                                                        : dict_lookup(frame.builtins, s.key.ptr());
        }
        case source_kind::module_attr:
            return parent != nullptr && PyModule_CheckExact(parent)
                       ? dict_lookup(PyModule_GetDict(parent), s.key.ptr())
                       : nullptr;
        case source_kind::attr:
            return plain_attr_of(parent, s.key.ptr(), owned);
        case source_kind::item:
            return parent != nullptr ? item_of(parent, s) : nullptr;
        case source_kind::computed_item:
            return computed_item_of(parent, *m_index_exprs[static_cast<size_t>(i)], values, owned);
        case source_kind::keyed_item:
            return keyed_item_of(parent, values[static_cast<size_t>(s.index)]);
        case source_kind::computed_slice:
            return computed_slice_of(parent, s, m_index_exprs[static_cast<size_t>(i)].get(),
                                     m_stop_exprs[static_cast<size_t>(i)].get(), values, owned);
        case source_kind::closure:
            return closure_of(frame.function, s.index);
        case source_kind::class_attr:
            return class_attr_of(parent, s.key.ptr(), owned);
        }
        return nullptr;
    }
} // namespace specula::engine
