#include "engine/while_chunks.hpp"

#include <vector>

#include "engine/chunk_steps.hpp"
#include "engine/engine_core.hpp"
#include "engine/loop_locals.hpp"
#include "engine/numpy_api.hpp"
#include "engine/py_ref.hpp"
#include "engine/runner.hpp"

namespace specula::engine::while_chunks
{
    namespace
    {
        namespace py = pybind11;
        using loop_chunks::chunk_exit;

        // The trips a chunk ran: its result (a cell loop's), or the first
        // item of a function loop's (trips, names, values...). -1 with an
        // exception set when it is not there.
        std::int64_t trips_of(PyObject* result, bool in_function)
        {
            PyObject* trips = result; // borrowed
            if (in_function)
            {
                trips = PyTuple_Check(result) && PyTuple_GET_SIZE(result) >= 2
                            ? PyTuple_GET_ITEM(result, 0) // borrowed
                            : nullptr;
            }
            const long long n =
                trips != nullptr && PyLong_CheckExact(trips) ? PyLong_AsLongLong(trips) : -1;
            if (n < 1)
            {
                PyErr_Clear();
                PyErr_SetString(PyExc_SystemError, "specula: a while chunk's trip count is lost");
                return -1;
            }
            return n;
        }

        // A function loop's rebound locals written back into its frame: the
        // chunk's (trips, names, values...) as an iteration's (broke, names,
        // values...), without a break. False with an exception set.
        bool write_locals(loop_locals& writer, PyObject* result)
        {
            const Py_ssize_t n = PyTuple_GET_SIZE(result);
            py::tuple items(n);
            items[0] = py::bool_(false);
            for (Py_ssize_t i = 1; i < n; ++i)
            {
                items[static_cast<size_t>(i)] =
                    py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(result, i)); // borrowed
            }
            bool broke = false;
            return writer.write_back(items.ptr(), broke);
        }
    } // namespace

    void start(loop_cursor& cur)
    {
        cur.iter = py::object();
        cur.streams.clear();
        cur.why.clear();
        cur.frame = PyEval_GetFrame(); // borrowed, identity only
        cur.one_graph = false;
        cur.streak = 0;
        cur.replay = 0;
        cur.next_k = 0;
    }

    chunk_exit run(region_record& rec, loop_cursor& cur, PyObject* globals, PyObject* builtins,
                   PyCodeObject* code, PyObject* const* locals, loop_locals* writer)
    {
        if (!chunk_steps::may_start(rec, cur) || !rec.chunk.while_test)
        {
            return chunk_exit::not_run;
        }
        const std::int64_t k = chunk_steps::next_size(rec, cur);
        // The view's locals: a function loop's own, then the chunk's start
        // (no target: 0), its trip count, step and [K] rows
        // (converter/chunk_effects.cpp), as a `for` loop's chunk has them.
        owned_refs owned;
        std::vector<PyObject*> view_locals;
        if (locals != nullptr)
        {
            view_locals.assign(locals, locals + rec.loop_locals.size());
        }
        view_locals.push_back(owned.keep(PyLong_FromLongLong(0)));
        view_locals.push_back(owned.keep(PyLong_FromLongLong(k)));
        view_locals.push_back(owned.keep(PyLong_FromLongLong(1)));
        npy_intp rows = static_cast<npy_intp>(k);
        view_locals.push_back(owned.keep(PyArray_ZEROS(1, &rows, NPY_INT8, 0)));
        if (PyErr_Occurred())
        {
            return chunk_exit::fail;
        }
        frame_hook::frame_view view{nullptr, globals, builtins, view_locals.data(), code};
        const auto started = chunk_steps::clock::now();
        const std::int64_t compiles = rec.chunk.compiles;
        std::vector<PyObject*> values;
        chunk_exit exit = chunk_exit::not_run;
        std::shared_ptr<specialisation> spec =
            chunk_steps::graph(rec, {}, view, values, owned, exit);
        if (!spec)
        {
            return exit;
        }
        // The chunk's own time, without converting and compiling its graph.
        const auto ran_from = rec.chunk.compiles != compiles ? chunk_steps::clock::now() : started;
        PyObject* raw = nullptr;
        run_report rep = run_specialisation(*spec, values, &raw);
        if (!chunk_steps::passed(rec, cur, k, *spec, rep, exit))
        {
            return exit;
        }
        py::object result = py::reinterpret_steal<py::object>(raw);
        const std::int64_t trips = trips_of(result.ptr(), writer != nullptr);
        if (trips < 0 || (writer != nullptr && !write_locals(*writer, result.ptr())))
        {
            return chunk_exit::fail; // effects committed, the locals not: CPython's error
        }
        chunk_steps::committed(rec, cur, k, trips, rep, started, ran_from);
        return chunk_exit::ran;
    }
} // namespace specula::engine::while_chunks
