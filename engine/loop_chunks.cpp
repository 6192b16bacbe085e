#include "engine/loop_chunks.hpp"

#include <algorithm>
#include <chrono>

#include "engine/chunk_steps.hpp"
#include "engine/converter/converter.hpp"
#include "engine/engine_core.hpp"
#include "engine/loop_locals.hpp"
#include "engine/numpy_api.hpp"
#include "engine/py_errors.hpp"
#include "engine/runner.hpp"

namespace specula::engine
{
    namespace
    {
        namespace py = pybind11;
        using chunk_steps::clock;

        bool long_attr(PyObject* o, const char* name, long long& out)
        {
            py::object v =
                py::reinterpret_steal<py::object>(PyObject_GetAttrString(o, name)); // new reference
            if (!v)
            {
                PyErr_Clear();
                return false;
            }
            int overflow = 0;
            out = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
            if (overflow != 0 || (out == -1 && PyErr_Occurred()))
            {
                PyErr_Clear();
                return false;
            }
            return true;
        }

        bool in_counter_range(long long v)
        {
            return v >= converter::relaxed_int_lo && v <= converter::relaxed_int_hi;
        }

        // The largest size up to `k` the chunk graph's plan allows from the
        // target's `value` on: the iterations before the first whose
        // counter-computed slice is not the rows the graph reads (a short last
        // batch), rounded down to a multiple of the period.
        std::int64_t fit(const loop_chunk_record& c, const loop_cursor& cur, long long value,
                         std::int64_t k)
        {
            if (!c.plan)
            {
                return k;
            }
            for (std::int64_t j = 0; j < k && !c.plan->slices.empty(); ++j)
            {
                // (Slices computed from a range's target.)
                py::object v = py::reinterpret_steal<py::object>(
                    PyLong_FromLongLong(value + j * cur.step)); // new reference
                for (const converter::chunk_slice_check& check : c.plan->slices)
                {
                    if (!v || !converter::chunk_slice_holds(check, v.ptr()))
                    {
                        PyErr_Clear();
                        k = j;
                        break;
                    }
                }
            }
            return k - k % c.plan->period;
        }

        // Moves CPython's iterator past the chunk's other iterations: a new
        // reference to the last value it yields (null with an exception).
        PyObject* advance(PyObject* iter, std::int64_t steps)
        {
            PyObject* last = nullptr;
            for (std::int64_t i = 0; i < steps; ++i)
            {
                Py_XDECREF(last);
                last = Py_TYPE(iter)->tp_iternext(iter); // new reference
                if (last == nullptr)
                {
                    if (!PyErr_Occurred())
                    {
                        PyErr_SetString(PyExc_SystemError, "specula: loop iterator ended early");
                    }
                    return nullptr;
                }
            }
            return last;
        }

        // Binds the loop's target (and, in a function, the locals the chunk
        // rebound) after the commit. False with an exception set.
        bool bind_target(region_record& rec, PyObject* globals, loop_locals* writer,
                         PyObject* result, PyObject* last)
        {
            // The names and values CPython's `for` binds from `last`: the
            // target, or a tuple target's names unpacked left to right.
            std::vector<std::pair<py::str, PyObject*>> binds;
            const std::size_t parts = rec.chunk.parts.size();
            for (std::size_t p = 0; p < std::max<std::size_t>(parts, 1); ++p)
            {
                PyObject* v = parts > 0 ? loop_sequences::part_of(last, static_cast<int>(p), parts)
                                        : last; // borrowed
                if (v == nullptr)
                {
                    PyErr_SetString(PyExc_SystemError, "specula: loop item changed in a chunk");
                    return false;
                }
                binds.emplace_back(py::str(parts > 0 ? rec.chunk.parts[p] : rec.chunk.target), v);
            }
            if (writer == nullptr)
            {
                for (const auto& [name, v] : binds)
                {
                    if (PyDict_SetItem(globals, name.ptr(), v) != 0)
                    {
                        return false;
                    }
                }
                return true;
            }
            // (False, names, values...) + the target's names.
            py::tuple got = py::reinterpret_borrow<py::tuple>(result);
            py::list names(got[1]);
            for (const auto& bind : binds)
            {
                names.append(bind.first);
            }
            py::list items;
            items.append(got[0]);
            items.append(py::tuple(names));
            for (size_t i = 2; i < got.size(); ++i)
            {
                items.append(got[i]);
            }
            for (const auto& bind : binds)
            {
                items.append(py::handle(bind.second));
            }
            bool broke = false;
            return writer->write_back(py::tuple(items).ptr(), broke);
        }

        // The value a target name holds now (borrowed; null when unbound).
        PyObject* bound_value(const region_record& rec, PyObject* globals, PyObject* const* locals,
                              const std::string& name)
        {
            if (locals != nullptr)
            {
                const auto& names = rec.loop_locals;
                auto at = std::find(names.begin(), names.end(), name);
                return at != names.end() ? locals[at - names.begin()] : nullptr;
            }
            py::str key(name);
            return PyDict_GetItemWithError(globals, key.ptr());
        }

        // The iteration the loop is at (a range's value; a loop over
        // sequences reads its streams' positions, and its chunks start at
        // 0), and whether its target holds the value CPython gave it (the
        // per-iteration path ran the body as is).
        bool current_value(const region_record& rec, loop_cursor& cur, PyObject* globals,
                           PyObject* const* locals, long long& value, long long& remaining)
        {
            if (!cur.streams.empty())
            {
                std::vector<PyObject*> bound;
                for (const std::string& name : rec.chunk.parts.empty()
                                                   ? std::vector<std::string>{rec.chunk.target}
                                                   : rec.chunk.parts)
                {
                    bound.push_back(bound_value(rec, globals, locals, name));
                }
                // The globals may hold a user key hashing like a name: its
                // __eq__ ran, and an interrupt there is the user's (raised at
                // the marker); any other error reads as unbound.
                clear_error_or_throw_interrupt();
                value = 0;
                return loop_sequences::position(cur, bound, remaining);
            }
            const Py_ssize_t left = PyObject_LengthHint(cur.iter.ptr(), -1);
            if (left < 0)
            {
                PyErr_Clear();
                return false;
            }
            remaining = left;
            value = cur.start + (cur.len - remaining - 1) * cur.step;
            PyObject* bound = bound_value(rec, globals, locals, rec.chunk.target); // borrowed
            // As above: an interrupt in a key's __eq__ is the user's.
            clear_error_or_throw_interrupt();
            if (bound == nullptr || !PyLong_CheckExact(bound))
            {
                return false;
            }
            int overflow = 0;
            const long long seen = PyLong_AsLongLongAndOverflow(bound, &overflow);
            PyErr_Clear();
            return overflow == 0 && seen == value;
        }
    } // namespace

    namespace loop_chunks
    {
        PyObject* start(loop_cursor& cur, PyObject* iterable, std::size_t names)
        {
            PyObject* it = PyObject_GetIter(iterable); // new reference
            if (it == nullptr)
            {
                return nullptr;
            }
            cur.iter = py::object();
            cur.streams.clear();
            cur.why.clear();
            cur.one_graph = false;
            cur.streak = 0;
            cur.replay = 0;
            cur.next_k = 0;
            long long start = 0, step = 1, len = 0;
            if (Py_IS_TYPE(iterable, &PyRange_Type) && Py_IS_TYPE(it, &PyRangeIter_Type) &&
                long_attr(iterable, "start", start) && long_attr(iterable, "step", step) &&
                step > -(1LL << 31) && step < (1LL << 31))
            {
                len = static_cast<long long>(PyObject_Size(iterable));
                if (len < 0)
                {
                    PyErr_Clear();
                    return it;
                }
                cur.iter = py::reinterpret_borrow<py::object>(it);
                cur.frame = PyEval_GetFrame(); // borrowed
                cur.start = start;
                cur.step = step;
                cur.len = len;
                return it;
            }
            loop_sequences::record(cur, iterable, it, names);
            return it;
        }

        void after_iteration(loop_cursor& cur, bool graph)
        {
            cur.one_graph = graph && !cur.chunked;
            cur.streak = graph ? cur.streak + 1 : 0;
            if (cur.replay > 0)
            {
                --cur.replay;
            }
        }

        chunk_exit run(region_record& rec, loop_cursor& cur, PyObject* globals, PyObject* builtins,
                       PyCodeObject* code, PyObject* const* locals, loop_locals* writer)
        {
            if (!chunk_steps::may_start(rec, cur) || rec.chunk.target.empty() || !cur.iter)
            {
                return chunk_exit::not_run;
            }
            long long value = 0, remaining = 0;
            if (!current_value(rec, cur, globals, locals, value, remaining))
            {
                return chunk_exit::not_run;
            }
            if (!rec.chunk.tests_known)
            {
                learn_counter_tests(rec, cur);
            }
            std::vector<bool> sides;
            if (!sides_at(rec.chunk, values_at(rec, cur, value, 0), sides) ||
                (rec.chunk.spec && sides != rec.chunk.sides))
            {
                return chunk_exit::not_run; // another side than the chunk graph's: one iteration
            }
            std::int64_t k =
                std::min<std::int64_t>(chunk_steps::next_size(rec, cur), remaining + 1);
            std::vector<bool> later;
            for (std::int64_t j = 1; j < k && !rec.chunk.tests.empty(); ++j)
            {
                if (!sides_at(rec.chunk, values_at(rec, cur, value, j), later) || later != sides)
                {
                    k = j; // the chunk ends before the other side
                }
            }
            if (!rec.chunk.spec)
            {
                rec.chunk.sides = sides;
            }
            k = fit(rec.chunk, cur, value, k);
            std::vector<sequence_items> items;
            if (!rec.chunk.parts.empty() && cur.streams.empty())
            {
                return chunk_exit::not_run; // a tuple target over a range: CPython raises
            }
            if (!cur.streams.empty())
            {
                k = loop_sequences::uniform(cur, k, items);
                if (k == 0)
                {
                    // This run's reason; a later run may iterate over others.
                    rec.chunk.reason =
                        "an item is neither a Python float or int in [-2**31, 2**31) nor "
                        "a C-contiguous array (a loop over sequences)";
                }
            }
            if (k < 2 || !in_counter_range(value) || !in_counter_range(value + (k - 1) * cur.step))
            {
                return chunk_exit::not_run;
            }
            // The view's locals: a function loop's own, then start, trips,
            // step, rows, and a loop over a sequence's stacked items.
            owned_refs owned;
            std::vector<PyObject*> view_locals;
            if (locals != nullptr)
            {
                view_locals.assign(locals, locals + rec.loop_locals.size());
            }
            view_locals.push_back(owned.keep(PyLong_FromLongLong(value)));
            view_locals.push_back(owned.keep(PyLong_FromLongLong(k)));
            view_locals.push_back(owned.keep(PyLong_FromLongLong(cur.step)));
            // K rows the graph's buffers of per-iteration effect values take
            // their size from (converter/chunk_effects.cpp).
            npy_intp rows = static_cast<npy_intp>(k);
            view_locals.push_back(owned.keep(PyArray_ZEROS(1, &rows, NPY_INT8, 0)));
            std::vector<PyObject*> stacks;
            for (size_t p = 0; p < items.size(); ++p)
            {
                stacks.push_back(owned.keep(loop_sequences::stack(cur, k, p, items[p])));
                view_locals.push_back(stacks.back());
            }
            if (PyErr_Occurred())
            {
                return chunk_exit::fail;
            }
            frame_hook::frame_view view{nullptr, globals, builtins, view_locals.data(), code};
            const auto started = clock::now();
            const std::int64_t compiles = rec.chunk.compiles;
            std::vector<PyObject*> values;
            chunk_exit exit = chunk_exit::not_run;
            std::shared_ptr<specialisation> spec =
                chunk_steps::graph(rec, items, view, values, owned, exit);
            if (exit == chunk_exit::fail)
            {
                return exit;
            }
            // The chunk's own time, as the one-iteration graph's samples are
            // taken: without converting and compiling its graph.
            const auto ran_from = rec.chunk.compiles != compiles ? clock::now() : started;
            if (!spec)
            {
                // No graph for this situation (its guards fail and it was
                // rebuilt often enough): the next K iterations run one by
                // one before another try, so the stacking above is not paid
                // at every iteration.
                cur.replay = k;
                return chunk_exit::not_run;
            }
            if (fit(rec.chunk, cur, value, k) != k)
            {
                // (A graph built just now may need another size: the next
                // entry picks one.)
                return chunk_exit::not_run;
            }
            if (!cur.streams.empty() && loop_sequences::items_alias_inputs(cur, k, values, stacks))
            {
                cur.replay = k;
                // The graph would read a copy of an array it writes: these
                // iterations run one by one.
                return chunk_exit::not_run;
            }
            PyObject* raw = nullptr;
            run_report rep = run_specialisation(*spec, values, &raw);
            if (!chunk_steps::passed(rec, cur, k, *spec, rep, exit))
            {
                return exit;
            }
            py::object result = py::reinterpret_steal<py::object>(raw);
            PyObject* last = advance(cur.iter.ptr(), k - 1);
            if (last == nullptr)
            {
                return chunk_exit::fail;
            }
            py::object last_owned = py::reinterpret_steal<py::object>(last);
            if (!bind_target(rec, globals, writer, result.ptr(), last))
            {
                return chunk_exit::fail;
            }
            chunk_steps::committed(rec, cur, k, k, rep, started, ran_from);
            return chunk_exit::ran;
        }
    } // namespace loop_chunks
} // namespace specula::engine
