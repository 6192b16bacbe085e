#include "engine/tree_commit.hpp"

#include <cstring>

#include "engine/numpy_api.hpp"

namespace specula::engine
{
    namespace
    {
        struct attr_tables
        {
            py::str name;
            py::object values; // (nodes, *shape), C order (the runner's output arrays)
            py::object tags;   // int64 (nodes,)
            py::object view_of;
            std::int64_t view_rows = 0;
        };

        // New reference: row `i` of `table` as an array of its own (C order,
        // owning its data, base None: what np.tanh(...) gives), or NULL.
        PyObject* row_copy(PyArrayObject* table, std::int64_t i)
        {
            const int rank = PyArray_NDIM(table) - 1;
            npy_intp* dims = PyArray_DIMS(table) + 1;
            PyArray_Descr* descr = PyArray_DESCR(table);
            Py_INCREF(descr); // PyArray_NewFromDescr steals it
            PyObject* row = PyArray_NewFromDescr(&PyArray_Type, descr, rank, dims, nullptr, nullptr,
                                                 0, nullptr);
            if (row == nullptr)
            {
                return nullptr;
            }
            const npy_intp bytes = PyArray_NBYTES(reinterpret_cast<PyArrayObject*>(row));
            std::memcpy(PyArray_DATA(reinterpret_cast<PyArrayObject*>(row)),
                        PyArray_BYTES(table) + i * bytes, static_cast<size_t>(bytes));
            return row;
        }

        // New reference: the value node `i` gets, nullptr with nothing set
        // when the run did not write it there, or nullptr with an error.
        PyObject* value_at(const attr_tables& t, std::int64_t i, bool& failed)
        {
            auto* tags = reinterpret_cast<PyArrayObject*>(t.tags.ptr());
            const std::int64_t tag = *reinterpret_cast<std::int64_t*>(PyArray_GETPTR1(tags, i));
            if (tag == tree_attr_write::tag_unwritten)
            {
                return nullptr;
            }
            PyObject* v = nullptr;
            if (tag == tree_attr_write::tag_fresh)
            {
                v = row_copy(reinterpret_cast<PyArrayObject*>(t.values.ptr()), i);
            }
            else
            {
                // The same indexing CPython ran (`L[word]` with a Python int):
                // the same view of the user's array.
                PyObject* index = PyLong_FromLongLong(tag - t.view_rows); // new reference
                v = index == nullptr ? nullptr : PyObject_GetItem(t.view_of.ptr(), index);
                Py_XDECREF(index);
            }
            failed = v == nullptr;
            return v;
        }
    } // namespace

    std::function<int()> tree_attr_commit(const tree_plan& plan,
                                          const std::vector<py::object>& outputs,
                                          const std::vector<PyObject*>& values)
    {
        std::vector<attr_tables> tables;
        for (const tree_attr_write& w : plan.writes)
        {
            attr_tables t;
            t.name = py::str(w.name);
            t.values = outputs[static_cast<size_t>(w.values_output)];
            t.tags = outputs[static_cast<size_t>(w.tags_output)];
            if (w.view_src >= 0)
            {
                t.view_of =
                    py::reinterpret_borrow<py::object>(values[static_cast<size_t>(w.view_src)]);
                t.view_rows = w.view_rows;
            }
            tables.push_back(std::move(t));
        }
        // Taken from the walk: a setattr at commit may run Python code
        // (a __del__) that calls the function again and walks anew.
        std::vector<py::object> nodes = std::move(plan.last.order);
        return [tables = std::move(tables), nodes = std::move(nodes)]() -> int
        {
            for (size_t i = 0; i < nodes.size(); ++i)
            {
                for (const attr_tables& t : tables)
                {
                    bool failed = false;
                    PyObject* v = value_at(t, static_cast<std::int64_t>(i), failed);
                    if (failed)
                    {
                        return -1;
                    }
                    if (v == nullptr)
                    {
                        continue;
                    }
                    const int rc = PyObject_SetAttr(nodes[i].ptr(), t.name.ptr(), v);
                    Py_DECREF(v);
                    if (rc < 0)
                    {
                        return -1;
                    }
                }
            }
            return 0;
        };
    }
} // namespace specula::engine
