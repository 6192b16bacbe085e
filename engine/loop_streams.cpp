// Where a loop over sequences is (loop_sequences.hpp): the streams of a
// list or tuple, an enumerate, a zip or an array's rows recorded at the
// loop's start, and their position read again before every chunk from the
// iterators themselves. The state of an enumerate, a zip, a range iterator
// and the sequence iterator NumPy gives an array is read through their
// C-level `__reduce__` (their exact types are checked first, so no user
// code runs); a list's or tuple's iterator through its `__length_hint__`.
#include <algorithm>
#include <cstring>

#include "engine/loop_chunks.hpp"
#include "engine/loop_sequences.hpp"
#include "engine/numpy_api.hpp"

namespace specula::engine
{
    namespace
    {
        namespace py = pybind11;
        using stream_kind = loop_stream::kind;

        // o.__reduce__() of an object of an exact builtin type (C code
        // only); null, no exception, when it fails.
        py::tuple reduce_of(PyObject* o)
        {
            py::object r = py::reinterpret_steal<py::object>(
                PyObject_CallMethod(o, "__reduce__", nullptr)); // new reference
            if (!r || !PyTuple_CheckExact(r.ptr()))
            {
                PyErr_Clear();
                return py::tuple();
            }
            return py::reinterpret_borrow<py::tuple>(r);
        }

        bool as_long(PyObject* o, long long& out)
        {
            if (o == nullptr || !PyLong_CheckExact(o))
            {
                return false;
            }
            int overflow = 0;
            out = PyLong_AsLongLongAndOverflow(o, &overflow);
            if (overflow != 0 || (out == -1 && PyErr_Occurred()))
            {
                PyErr_Clear();
                return false;
            }
            return true;
        }

        bool long_attr(PyObject* o, const char* name, long long& out)
        {
            py::object v =
                py::reinterpret_steal<py::object>(PyObject_GetAttrString(o, name)); // new reference
            PyErr_Clear();
            return as_long(v.ptr(), out);
        }

        // Whether `o` is an exact ndarray; NumPy's C API is loaded lazily
        // (invariant 4), so it is loaded here when `o`'s type is NumPy's.
        bool exact_array(PyObject* o)
        {
            if (PyArray_API == nullptr)
            {
                if (std::strcmp(Py_TYPE(o)->tp_name, "numpy.ndarray") != 0)
                {
                    return false;
                }
                if (!ensure_numpy())
                {
                    PyErr_Clear();
                    return false;
                }
            }
            return PyArray_CheckExact(o);
        }

        Py_ssize_t size_of(PyObject* seq)
        {
            return PyList_CheckExact(seq) ? PyList_GET_SIZE(seq) : PyTuple_GET_SIZE(seq);
        }

        // A list's or tuple's own iterator, a range iterator, or NumPy's
        // sequence iterator over an array, as a stream (false: another
        // iterator, `why` saying so).
        bool stream_of_iterator(PyObject* it, loop_stream& s, std::string& why)
        {
            s.it = py::reinterpret_borrow<py::object>(it);
            if (Py_IS_TYPE(it, &PyRangeIter_Type))
            {
                s.k = stream_kind::range;
                return true;
            }
            if (!Py_IS_TYPE(it, &PyListIter_Type) && !Py_IS_TYPE(it, &PyTupleIter_Type) &&
                !Py_IS_TYPE(it, &PySeqIter_Type))
            {
                why = std::string("a ") + Py_TYPE(it)->tp_name + " inside it";
                return false;
            }
            // (iter, (seq,), index); (iter, ((),)) once exhausted.
            py::tuple r = reduce_of(it);
            if (!r || r.size() != 3 || !PyTuple_Check(r[1].ptr()) || py::len(r[1]) != 1)
            {
                why = "an exhausted iterator inside it";
                return false;
            }
            PyObject* seq = PyTuple_GET_ITEM(r[1].ptr(), 0); // borrowed
            s.seq = py::reinterpret_borrow<py::object>(seq);
            if (!Py_IS_TYPE(it, &PySeqIter_Type))
            {
                // (A list or tuple iterator over a subclass: the items are
                // the same, but left to CPython.)
                s.k = stream_kind::items;
                if (!PyList_CheckExact(seq) && !PyTuple_CheckExact(seq))
                {
                    why = std::string("the items of a ") + Py_TYPE(seq)->tp_name;
                    return false;
                }
                return true;
            }
            s.k = stream_kind::rows;
            if (!exact_array(seq))
            {
                why = std::string("the items of a ") + Py_TYPE(seq)->tp_name;
                return false;
            }
            if (PyArray_NDIM(reinterpret_cast<PyArrayObject*>(seq)) < 2)
            {
                why = "the items of a 1-d array (NumPy scalars)";
                return false;
            }
            if (!loop_sequences::stackable(seq, 2))
            {
                why = "the rows of an array that is not C-contiguous, native and aligned";
                return false;
            }
            return true;
        }

        // The inner iterators of an exact enumerate (count first) or zip.
        bool streams_of(PyObject* iterable, std::vector<loop_stream>& out, std::string& why)
        {
            py::tuple r = reduce_of(iterable);
            const bool zip = Py_IS_TYPE(iterable, &PyZip_Type);
            if (!r || r.size() < 2 || !PyTuple_Check(r[1].ptr()))
            {
                why = "a state it does not show";
                return false;
            }
            if (zip && r.size() != 2)
            {
                why = "strict=True"; // its end raises ValueError: left to CPython
                return false;
            }
            py::tuple args = py::reinterpret_borrow<py::tuple>(r[1]);
            if (!zip)
            {
                loop_stream count;
                count.k = stream_kind::count;
                count.it = py::reinterpret_borrow<py::object>(iterable);
                out.push_back(count);
                args = py::make_tuple(args[0]);
            }
            for (py::handle a : args)
            {
                loop_stream s;
                if (!stream_of_iterator(a.ptr(), s, why))
                {
                    return false;
                }
                for (const loop_stream& other : out)
                {
                    if (other.it.is(s.it))
                    {
                        why = "one iterator twice"; // each next() moves both
                        return false;
                    }
                }
                out.push_back(s);
            }
            return true;
        }

        // Where stream `s` is and how many values follow; false when the
        // value `bound` its name holds is not the one it gave last.
        bool stream_position(loop_stream& s, PyObject* bound, long long& remaining)
        {
            if (bound == nullptr)
            {
                return false;
            }
            switch (s.k)
            {
            case stream_kind::count:
            {
                // (enumerate, (iterator, next count)).
                py::tuple r = reduce_of(s.it.ptr());
                long long next = 0;
                if (!r || r.size() != 2 || py::len(r[1]) != 2 ||
                    !as_long(py::tuple(r[1])[1].ptr(), next))
                {
                    return false;
                }
                long long seen = 0;
                s.at = next - 1;
                remaining = 1LL << 62; // the other stream ends the loop
                return as_long(bound, seen) && seen == s.at;
            }
            case stream_kind::range:
            {
                // (iter, (range,), index of the next value).
                py::tuple r = reduce_of(s.it.ptr());
                long long index = 0, start = 0, len = 0;
                if (!r || r.size() != 3 || !as_long(r[2].ptr(), index) || py::len(r[1]) != 1)
                {
                    return false;
                }
                PyObject* range = PyTuple_GET_ITEM(r[1].ptr(), 0); // borrowed
                len = static_cast<long long>(PyObject_Size(range));
                if (len < 0 || index < 1 || !long_attr(range, "start", start) ||
                    !long_attr(range, "step", s.step) || s.step <= -(1LL << 31) ||
                    s.step >= (1LL << 31))
                {
                    PyErr_Clear();
                    return false;
                }
                long long seen = 0;
                s.at = start + (index - 1) * s.step;
                remaining = std::max(0LL, len - index);
                return as_long(bound, seen) && seen == s.at;
            }
            case stream_kind::items:
            {
                // A list or tuple iterator's hint is the items after its
                // index (0 once exhausted): the item it gave last is just
                // before.
                const Py_ssize_t left = PyObject_LengthHint(s.it.ptr(), -1);
                if (left < 0)
                {
                    PyErr_Clear();
                    return false;
                }
                const Py_ssize_t n = size_of(s.seq.ptr());
                s.at = static_cast<long long>(n - left - 1);
                remaining = left;
                return s.at >= 0;
            }
            case stream_kind::rows:
            {
                // (iter, (array,), index of the next row).
                py::tuple r = reduce_of(s.it.ptr());
                long long index = 0;
                if (!r || r.size() != 3 || !as_long(r[2].ptr(), index) || py::len(r[1]) != 1 ||
                    PyTuple_GET_ITEM(r[1].ptr(), 0) != s.seq.ptr() ||
                    !loop_sequences::stackable(s.seq.ptr(), 2))
                {
                    return false; // exhausted, or the array's shape or layout changed
                }
                auto* x = reinterpret_cast<PyArrayObject*>(s.seq.ptr());
                s.at = index - 1;
                remaining = std::max<long long>(0, PyArray_DIMS(x)[0] - index);
                if (s.at < 0 || s.at >= PyArray_DIMS(x)[0] || !PyArray_CheckExact(bound))
                {
                    return false;
                }
                // The name holds a view of row `at` (CPython's `for` bound
                // X[at], a new view; the body may not have rebound it).
                auto* row = reinterpret_cast<PyArrayObject*>(bound);
                const int nd = PyArray_NDIM(x);
                return PyArray_NDIM(row) == nd - 1 &&
                       PyArray_DESCR(row)->type_num == PyArray_DESCR(x)->type_num &&
                       PyArray_CompareLists(PyArray_DIMS(row), PyArray_DIMS(x) + 1, nd - 1) &&
                       PyArray_IS_C_CONTIGUOUS(row) &&
                       PyArray_BYTES(row) == PyArray_BYTES(x) + s.at * PyArray_STRIDES(x)[0];
            }
            }
            return false;
        }
    } // namespace

    namespace loop_sequences
    {
        bool record(loop_cursor& cur, PyObject* iterable, PyObject* it, std::size_t names)
        {
            cur.streams.clear();
            cur.unpacks = false;
            cur.why.clear();
            std::vector<loop_stream> streams;
            const char* what = Py_IS_TYPE(iterable, &PyZip_Type)    ? "a zip with "
                               : Py_IS_TYPE(iterable, &PyEnum_Type) ? "an enumerate with "
                               : exact_array(iterable)              ? "an array: "
                                                                    : nullptr;
            std::string why;
            if (PyList_CheckExact(iterable) || PyTuple_CheckExact(iterable))
            {
                if (!Py_IS_TYPE(it, &PyListIter_Type) && !Py_IS_TYPE(it, &PyTupleIter_Type))
                {
                    return false;
                }
                loop_stream s;
                s.k = stream_kind::items;
                s.it = py::reinterpret_borrow<py::object>(it);
                s.seq = py::reinterpret_borrow<py::object>(iterable);
                streams.push_back(s);
                cur.unpacks = names > 1;
            }
            else if (Py_IS_TYPE(iterable, &PyZip_Type) || Py_IS_TYPE(iterable, &PyEnum_Type))
            {
                if (it != iterable || !streams_of(iterable, streams, why))
                {
                    cur.why = std::string("iterates over ") + what + why;
                    return false;
                }
                if (streams.size() != names)
                {
                    cur.why = std::string("iterates over ") + what +
                              std::to_string(streams.size()) + " values bound to " +
                              std::to_string(names) + " name(s)";
                    return false;
                }
            }
            else if (exact_array(iterable))
            {
                loop_stream s;
                if (!Py_IS_TYPE(it, &PySeqIter_Type) || !stream_of_iterator(it, s, why) ||
                    names != 1)
                {
                    cur.why = std::string("iterates over ") + what +
                              (why.empty() ? "its rows unpacked" : why);
                    return false;
                }
                streams.push_back(s);
            }
            else
            {
                return false;
            }
            cur.streams = std::move(streams);
            cur.names = names;
            cur.iter = py::reinterpret_borrow<py::object>(it);
            cur.frame = PyEval_GetFrame(); // borrowed
            cur.start = 0;
            cur.step = 1;
            cur.len = 0;
            return true;
        }

        bool position(loop_cursor& cur, const std::vector<PyObject*>& bound, long long& remaining)
        {
            const std::size_t names = bound.size();
            if (cur.streams.empty() || (!cur.unpacks && names != cur.streams.size()))
            {
                return false;
            }
            remaining = 1LL << 62;
            for (std::size_t s = 0; s < cur.streams.size(); ++s)
            {
                long long left = 0;
                loop_stream& stream = cur.streams[s];
                // A list of tuples unpacked: the stream's item is checked
                // part by part below.
                PyObject* first = cur.unpacks ? Py_None : bound[s];
                if (!stream_position(stream, first, left))
                {
                    return false;
                }
                remaining = std::min(remaining, left);
            }
            for (std::size_t p = 0; p < names; ++p)
            {
                // Items by identity: the object CPython bound.
                if (cur.streams[cur.unpacks ? 0 : p].k != stream_kind::items)
                {
                    continue;
                }
                py::object now = value(cur, p, 0);
                if (!now || bound[p] != now.ptr())
                {
                    return false;
                }
            }
            return true;
        }

        bool counts(const loop_cursor& cur, std::size_t name)
        {
            if (cur.unpacks || name >= cur.streams.size())
            {
                return false;
            }
            const stream_kind k = cur.streams[name].k;
            return k == stream_kind::count || k == stream_kind::range ||
                   (k == stream_kind::items && cur.streams.size() == 1);
        }

        py::object value(const loop_cursor& cur, std::size_t name, std::int64_t j)
        {
            const loop_stream& s = cur.streams[cur.unpacks ? 0 : name];
            switch (s.k)
            {
            case stream_kind::count:
            case stream_kind::range:
                return py::reinterpret_steal<py::object>(
                    PyLong_FromLongLong(s.at + j * s.step)); // new reference
            case stream_kind::items:
            {
                const long long index = s.at + j;
                if (index < 0 || index >= size_of(s.seq.ptr()))
                {
                    return py::object();
                }
                PyObject* item = PyList_CheckExact(s.seq.ptr())
                                     ? PyList_GET_ITEM(s.seq.ptr(), index)
                                     : PyTuple_GET_ITEM(s.seq.ptr(), index); // borrowed
                PyObject* part = part_of(item, cur.unpacks ? static_cast<int>(name) : -1,
                                         cur.unpacks ? cur.names : 0); // borrowed
                return py::reinterpret_borrow<py::object>(part);
            }
            case stream_kind::rows:
            {
                auto* x = reinterpret_cast<PyArrayObject*>(s.seq.ptr());
                if (s.at + j >= PyArray_DIMS(x)[0])
                {
                    return py::object();
                }
                py::object row = py::reinterpret_steal<py::object>(
                    PySequence_GetItem(s.seq.ptr(), s.at + j)); // new reference
                PyErr_Clear();
                return row;
            }
            }
            return py::object();
        }

        PyObject* part_of(PyObject* item, int part, std::size_t parts)
        {
            if (part < 0 || item == nullptr)
            {
                return item;
            }
            // CPython unpacks any iterable; a chunk reads tuples only.
            if (!PyTuple_CheckExact(item) ||
                static_cast<std::size_t>(PyTuple_GET_SIZE(item)) != parts)
            {
                return nullptr;
            }
            return PyTuple_GET_ITEM(item, part);
        }
    } // namespace loop_sequences
} // namespace specula::engine
