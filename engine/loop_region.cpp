#include "engine/loop_region.hpp"

#include <algorithm>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine_core.hpp"
#include "engine/loop_chunks.hpp"
#include "engine/loop_iterator.hpp"
#include "engine/loop_locals.hpp"
#include "engine/loop_records.hpp"
#include "engine/py_errors.hpp"
#include "engine/runner.hpp"
#include "engine/sources.hpp"
#include "engine/thread_rules.hpp"
#include "engine/while_chunks.hpp"

namespace specula::engine
{
    namespace
    {
        using clock = std::chrono::steady_clock;
        using frame_hook::frame_exit;

        struct loop_state
        {
            region_record* rec = nullptr; // owned by engine_core's registry
            bool unavailable = false;     // describing the loop failed: CPython for good
            bool cell = false;            // a whole cell (run again), not a loop
            bool in_function = false;     // a loop inside a function (on-stack replacement)
            // The last entry let CPython run the body: the next entry (in
            // the same cell) ends that iteration's timing.
            bool timing = false;
            clock::time_point started;
            loop_cursor cursor; // a `for` loop over a range or sequences: where it is (chunks)
        };

        // Indexed by the transformer's loop id. Never destroyed: a cursor holds
        // Python references (the iterator, the sequence) that would be
        // released after the interpreter ended, without the GIL.
        std::vector<loop_state>& g_loops = *new std::vector<loop_state>();
        // builtins.__specula_loops__ (specula.cell_loops' list, strong
        // reference; never released: code may run until the interpreter ends).
        PyObject* g_flags = nullptr;
        bool g_broke = false; // the last graph iteration took a `break`

        // Loops the engine leaves to CPython at this moment (thread_rules.hpp):
        // another thread's, a traced or profiled thread's, and any entered
        // while the engine is at work.
        bool cpython_runs_loops()
        {
            return frame_hook::busy() || !thread_rules::main_thread() ||
                   thread_rules::observed(PyThreadState_Get());
        }

        bool is_terminal(region_state s)
        {
            return s == region_state::not_convertible || s == region_state::blacklisted;
        }

        // The region went back to CPython for good: its iterations stop
        // calling the engine (the transformer's `__specula_loops__[id] and`).
        void settle(long id)
        {
            if (g_flags != nullptr && PyList_Check(g_flags) && id < PyList_GET_SIZE(g_flags))
            {
                Py_INCREF(Py_False);
                PyList_SetItem(g_flags, id, Py_False); // steals the new reference
            }
        }

        loop_state* state_of(long id)
        {
            if (static_cast<size_t>(id) >= g_loops.size())
            {
                g_loops.resize(static_cast<size_t>(id) + 1);
            }
            loop_state& st = g_loops[static_cast<size_t>(id)];
            if (st.rec == nullptr && !st.unavailable)
            {
                try
                {
                    st.rec = loop_records::describe(id);
                    st.cell = std::string(st.rec->kind) == "cell";
                    st.in_function = st.rec->function_loop;
                }
                catch (py::error_already_set& e)
                {
                    if (!e.matches(PyExc_Exception))
                    {
                        // The user's interrupt (or SystemExit), raised while
                        // the description's Python ran: the boundary raises
                        // it at the marker. Nothing was adopted, so the loop
                        // is described at its next entry.
                        e.restore();
                        drop_engine_traceback();
                        throw py::error_already_set();
                    }
                    st.unavailable = true; // this loop stays in CPython
                }
                catch (const std::exception&)
                {
                    // A failed cast, or a loop in a function entered
                    // without a frame: this loop stays in CPython (unless
                    // the user's interrupt is pending: raised at the marker).
                    clear_error_or_throw_interrupt();
                    st.unavailable = true;
                }
            }
            return st.rec != nullptr ? &st : nullptr;
        }

        // A chunk of a `for` loop (loop_chunks.hpp) or a `while` loop
        // (while_chunks.hpp) from the iteration being entered on.
        loop_chunks::chunk_exit run_chunk(region_record& rec, loop_cursor& cursor,
                                          PyObject* globals, PyObject* builtins, PyCodeObject* code,
                                          PyObject* const* locals, loop_locals* writer)
        {
            return rec.chunk.while_test
                       ? while_chunks::run(rec, cursor, globals, builtins, code, locals, writer)
                       : loop_chunks::run(rec, cursor, globals, builtins, code, locals, writer);
        }

        // One entry of a loop at a cell's module level: every name is a
        // global. A new reference to True (ran as a graph) or False, or NULL
        // with an exception set.
        PyObject* enter_in_cell(long id, region_record& rec, loop_cursor& cursor)
        {
            frame_hook::frame_view view{nullptr, PyEval_GetGlobals(), PyEval_GetBuiltins(), nullptr,
                                        nullptr};
            if (view.globals == nullptr || view.builtins == nullptr)
            {
                Py_RETURN_FALSE;
            }
            switch (run_chunk(rec, cursor, view.globals, view.builtins, nullptr, nullptr, nullptr))
            {
            case loop_chunks::chunk_exit::ran:
                g_broke = false;
                Py_RETURN_TRUE;
            case loop_chunks::chunk_exit::fail:
                return nullptr;
            case loop_chunks::chunk_exit::not_run:
                break;
            }
            PyObject* result = nullptr;
            frame_exit exit = engine_core::instance().enter_region(rec, view, &result);
            if (is_terminal(rec.r->state()))
            {
                settle(id);
            }
            switch (exit)
            {
            case frame_exit::run_compiled:
                g_broke = PyObject_IsTrue(result) == 1;
                Py_DECREF(result);
                Py_RETURN_TRUE;
            case frame_exit::fail:
                return nullptr;
            case frame_exit::run_default:
                break;
            }
            Py_RETURN_FALSE;
        }

        // One entry of a loop inside a running function (on-stack
        // replacement): the loop's locals are read from the caller's frame
        // and are the graph's arguments; after the commit the locals the
        // iteration rebound are written back into the frame. Same answers as
        // enter_in_cell.
        PyObject* enter_in_function(long id, region_record& rec, loop_cursor& cursor)
        {
            PyFrameObject* frame = PyEval_GetFrame(); // borrowed
            if (frame == nullptr)
            {
                Py_RETURN_FALSE;
            }
            // New reference; frame_view holds it borrowed.
            py::object code = py::reinterpret_steal<py::object>(
                reinterpret_cast<PyObject*>(PyFrame_GetCode(frame)));
            if (!(reinterpret_cast<PyCodeObject*>(code.ptr())->co_flags & CO_OPTIMIZED))
            {
                // Not a function frame: f_locals would be the real namespace.
                Py_RETURN_FALSE;
            }
            loop_locals locals(frame, rec.loop_locals);
            if (!locals.ok())
            {
                Py_RETURN_FALSE;
            }
            frame_hook::frame_view view{nullptr, PyEval_GetGlobals(), PyEval_GetBuiltins(),
                                        locals.values(),
                                        reinterpret_cast<PyCodeObject*>(code.ptr())};
            if (view.globals == nullptr || view.builtins == nullptr)
            {
                Py_RETURN_FALSE;
            }
            switch (run_chunk(rec, cursor, view.globals, view.builtins, view.code, view.locals,
                              &locals))
            {
            case loop_chunks::chunk_exit::ran:
                g_broke = false;
                Py_RETURN_TRUE;
            case loop_chunks::chunk_exit::fail:
                return nullptr;
            case loop_chunks::chunk_exit::not_run:
                break;
            }
            PyObject* result = nullptr;
            frame_exit exit = engine_core::instance().enter_region(rec, view, &result);
            if (is_terminal(rec.r->state()))
            {
                settle(id);
            }
            switch (exit)
            {
            case frame_exit::run_compiled:
            {
                py::object owned = py::reinterpret_steal<py::object>(result);
                bool broke = false;
                if (!locals.write_back(owned.ptr(), broke))
                {
                    return nullptr; // effects committed, the locals not: CPython's error
                }
                g_broke = broke;
                Py_RETURN_TRUE;
            }
            case frame_exit::fail:
                return nullptr;
            case frame_exit::run_default:
                break;
            }
            Py_RETURN_FALSE;
        }

        // The builtins below are called by CPython's eval loop: a C++
        // exception must not unwind through it (its frame bookkeeping lives
        // on the C stack; skipped, it leaves the thread's current frame
        // dangling and the next Python call crashes). The user's interrupt
        // (or SystemExit) raised while the engine worked is raised at the
        // marker, as CPython would an instant later. The engine's own errors
        // thrown before a commit go to `fallback` (CPython runs the
        // iteration, or the error is raised); after one (a chunk's target
        // not bound yet) the iteration must not run again: the error is
        // raised (runner.hpp, commits_started).
        template <class body_fn, class fallback_fn>
        PyObject* at_python_boundary(body_fn&& body, fallback_fn&& fallback) noexcept
        {
            const std::uint64_t commits = commits_started();
            std::string why;
            try
            {
                return body();
            }
            catch (py::error_already_set& e)
            {
                if (!e.matches(PyExc_Exception))
                {
                    e.restore();
                    return nullptr;
                }
                why = e.what();
            }
            catch (const std::exception& e)
            {
                why = e.what();
            }
            catch (...)
            {
                why = "unknown C++ exception";
            }
            if (commits_started() != commits)
            {
                if (!clear_error_unless_interrupt())
                {
                    raise_after_commit(why);
                }
                return nullptr;
            }
            try
            {
                return fallback("internal error: " + why);
            }
            catch (...)
            {
                PyErr_SetString(PyExc_SystemError, "specula: internal error in a loop entry");
                return nullptr;
            }
        }

        // __specula_loop__(id), at the top of every iteration: a new reference to True (the engine
        // ran the iteration) or False (CPython runs it), or NULL with an exception set
        // (KeyboardInterrupt during a graph run; nothing was committed).
        PyObject* loop_entry_body(PyObject* arg)
        {
            long id = PyLong_AsLong(arg);
            if (id < 0)
            {
                PyErr_Clear();
                Py_RETURN_FALSE;
            }
            loop_state* st = state_of(id);
            if (st == nullptr)
            {
                Py_RETURN_FALSE;
            }
            region& r = *st->rec->r;
            if (st->timing)
            {
                // A loop's iteration ends where the next one starts; a cell
                // that is entered again while timed raised before its end.
                st->timing = false;
                if (!st->cell)
                {
                    r.record_cpython_time(
                        std::chrono::duration<double>(clock::now() - st->started).count());
                }
            }
            engine_core& core = engine_core::instance();
            if (!core.enabled() || cpython_runs_loops() || --r.m_slot.countdown >= 0)
            {
                Py_RETURN_FALSE;
            }
            PyObject* answer = nullptr;
            {
                frame_hook::busy_scope engine_work;
                answer = st->in_function ? enter_in_function(id, *st->rec, st->cursor)
                                         : enter_in_cell(id, *st->rec, st->cursor);
            }
            loop_chunks::after_iteration(st->cursor, answer == Py_True);
            if (answer == Py_False)
            {
                st->timing = true;
                st->started = clock::now();
            }
            return answer;
        }

        // The marker's answer, where FOR_ITER already bound the target of an
        // iteration whose body has not run (loop_iterator.hpp): the user's
        // interrupt, raised by the engine with nothing of the iteration
        // committed or pending as CPython is about to run the body (its
        // call's signal check would raise it at once), is held by the loop's
        // iterator and raised at the next FOR_ITER, after CPython ran the
        // body. A `while` loop (no such iterator) raises it here: its test
        // bound nothing. An answer after a commit stands (the state of whole
        // iterations); a pending signal is then raised right after it.
        PyObject* interrupt_at_iteration_end(long id, PyObject* answer, std::uint64_t commits)
        {
            if (answer == Py_False)
            {
                if (PyErr_CheckSignals() == 0)
                {
                    return answer;
                }
                Py_DECREF(answer);
                answer = nullptr;
            }
            if (answer != nullptr || commits_started() != commits ||
                !loop_iterator::hold_pending(id))
            {
                return answer;
            }
            Py_RETURN_FALSE;
        }

        PyObject* loop_entry(PyObject*, PyObject* arg)
        {
            const long id = PyLong_AsLong(arg);
            if (id == -1 && PyErr_Occurred())
            {
                PyErr_Clear();
            }
            const std::uint64_t commits = commits_started();
            PyObject* answer = at_python_boundary([&] { return loop_entry_body(arg); },
                                                  [&](const std::string& why) -> PyObject*
                                                  {
                                                      loop_state* st =
                                                          id >= 0 ? state_of(id) : nullptr;
                                                      if (st != nullptr)
                                                      {
                                                          st->rec->r->record_internal_error(why);
                                                      }
                                                      Py_RETURN_FALSE;
                                                  });
            return interrupt_at_iteration_end(id, answer, commits);
        }

        // __specula_loop_live__(id), once per loop start: a new reference to
        // False when the loop runs without entries (engine off, or the region
        // is not convertible or blacklisted), True otherwise.
        PyObject* loop_live_body(PyObject* arg)
        {
            long id = PyLong_AsLong(arg);
            if (id < 0)
            {
                PyErr_Clear();
                Py_RETURN_FALSE;
            }
            // Before the program imports NumPy nothing can compile: the loop
            // runs without an engine call per iteration.
            loop_state* st = engine_core::instance().enabled() &&
                                     engine_core::program_uses_numpy() && !cpython_runs_loops()
                                 ? state_of(id)
                                 : nullptr;
            if (st == nullptr)
            {
                Py_RETURN_FALSE;
            }
            // The previous run's last iteration was not timed to its end.
            st->timing = false;
            if (st->rec->chunk.while_test)
            {
                while_chunks::start(st->cursor); // (a `for` loop's: __specula_iter__)
            }
            if (is_terminal(st->rec->r->state()))
            {
                settle(id);
                Py_RETURN_FALSE;
            }
            Py_RETURN_TRUE;
        }

        PyObject* loop_live(PyObject*, PyObject* arg)
        {
            return at_python_boundary([&] { return loop_live_body(arg); },
                                      [](const std::string&) -> PyObject* { Py_RETURN_FALSE; });
        }

        // __specula_iter__(id, iterable), where a live `for` loop takes its
        // iterator: iter(iterable) in the wrapper that raises an interrupt
        // the marker held (loop_iterator.hpp; a new reference, or NULL with
        // CPython's exception), a range or sequences recorded for chunks.
        PyObject* loop_iter_body(PyObject* const* args, Py_ssize_t nargs)
        {
            if (nargs != 2)
            {
                PyErr_SetString(PyExc_TypeError, "__specula_iter__ takes 2 arguments");
                return nullptr;
            }
            long id = PyLong_AsLong(args[0]);
            if (id < 0)
            {
                PyErr_Clear();
                return PyObject_GetIter(args[1]);
            }
            loop_state* st =
                engine_core::instance().enabled() && !cpython_runs_loops() ? state_of(id) : nullptr;
            if (st == nullptr || st->rec->chunk.target.empty())
            {
                PyObject* it = PyObject_GetIter(args[1]);
                return it != nullptr ? loop_iterator::wrap(id, it) : nullptr;
            }
            PyObject* it = loop_chunks::start(
                st->cursor, args[1], std::max<std::size_t>(1, st->rec->chunk.parts.size()));
            loop_chunk_record& chunk = st->rec->chunk;
            if (it != nullptr && !chunk.refused)
            {
                // Why this run of the loop has no chunks (none: it may).
                chunk.reason = st->cursor.iter ? std::string()
                               : !st->cursor.why.empty()
                                   ? st->cursor.why
                                   : std::string("iterates over a ") + Py_TYPE(args[1])->tp_name +
                                         ", not a range, list, tuple, enumerate, zip or array";
            }
            // (The cursor keeps the loop's own iterator: chunks move it on.)
            return it != nullptr ? loop_iterator::wrap(id, it) : nullptr;
        }

        PyObject* loop_iter(PyObject*, PyObject* const* args, Py_ssize_t nargs)
        {
            return at_python_boundary([&] { return loop_iter_body(args, nargs); },
                                      [](const std::string& why) -> PyObject*
                                      {
                                          PyErr_SetString(PyExc_SystemError,
                                                          ("specula: " + why).c_str());
                                          return nullptr;
                                      });
        }

        // __specula_loop_done__(id): a cell's statements ran to their end in
        // CPython, or a loop at a cell's module level ended after an iteration
        // CPython ran (timed for the cost check). A new reference to None.
        PyObject* loop_done(PyObject*, PyObject* arg)
        {
            long id = PyLong_AsLong(arg);
            if (id < 0)
            {
                PyErr_Clear();
                Py_RETURN_NONE;
            }
            if (static_cast<size_t>(id) < g_loops.size())
            {
                loop_state& st = g_loops[static_cast<size_t>(id)];
                if (st.timing && st.rec != nullptr)
                {
                    st.timing = false;
                    st.rec->r->record_cpython_time(
                        std::chrono::duration<double>(clock::now() - st.started).count());
                }
            }
            Py_RETURN_NONE;
        }

        // __specula_loop_broke__(): whether the iteration the engine just ran
        // took a `break` (a new reference to a bool).
        PyObject* loop_broke(PyObject*, PyObject*)
        {
            return PyBool_FromLong(g_broke ? 1 : 0);
        }

        PyMethodDef g_entry_def{
            "__specula_loop__", loop_entry, METH_O,
            "Specula: run this loop iteration as a graph (True) or not (False)."};
        PyMethodDef g_live_def{"__specula_loop_live__", loop_live, METH_O,
                               "Specula: whether this loop starts as an engine region."};
        PyMethodDef g_done_def{"__specula_loop_done__", loop_done, METH_O,
                               "Specula: a cell region's statements ran to their end in CPython."};
        // METH_FASTCALL: CPython calls it back through its own signature
        // (_PyCFunctionFast). The cast through `void (*)(void)` is the
        // documented way to store it in ml_meth without -Wcast-function-type.
        // It returns a new reference (or NULL); its arguments are borrowed.
        PyMethodDef g_iter_def{
            "__specula_iter__",
            reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(loop_iter)),
            METH_FASTCALL, "Specula: the iterator of a loop the engine may run in chunks."};
        PyMethodDef g_broke_def{"__specula_loop_broke__", loop_broke, METH_NOARGS,
                                "Specula: whether the iteration the engine ran took a break."};
    } // namespace

    namespace loop_region
    {
        config loop_config(const config& engine_settings)
        {
            // Every loop is judged by the cost check, however short its body:
            // CPython iterations are timed from entry to entry without the
            // frame hook's overhead, and a graph standing in for a tiny body
            // is pure overhead, many times slower than the few bytecodes it
            // replaces.
            config cfg = engine_settings;
            cfg.cost_floor_s = 0.0;
            return cfg;
        }

        void reset_all()
        {
            for (loop_state& st : g_loops)
            {
                st.timing = false;
                if (st.cell && st.rec != nullptr)
                {
                    loop_records::hold_first_run(*st.rec->r);
                }
            }
            if (g_flags == nullptr || !PyList_Check(g_flags))
            {
                return;
            }
            for (Py_ssize_t i = 0; i < PyList_GET_SIZE(g_flags); ++i)
            {
                Py_INCREF(Py_True);
                PyList_SetItem(g_flags, i, Py_True); // steals the new reference
            }
        }

        void install_builtins(py::list flags)
        {
            py::module_ builtins = py::module_::import("builtins");
            Py_XDECREF(g_flags);
            g_flags = flags.inc_ref().ptr();
            builtins.attr("__specula_loops__") = flags;
            builtins.attr(g_entry_def.ml_name) =
                py::reinterpret_steal<py::object>(PyCFunction_New(&g_entry_def, nullptr));
            builtins.attr(g_live_def.ml_name) =
                py::reinterpret_steal<py::object>(PyCFunction_New(&g_live_def, nullptr));
            builtins.attr(g_done_def.ml_name) =
                py::reinterpret_steal<py::object>(PyCFunction_New(&g_done_def, nullptr));
            builtins.attr(g_iter_def.ml_name) =
                py::reinterpret_steal<py::object>(PyCFunction_New(&g_iter_def, nullptr));
            builtins.attr(g_broke_def.ml_name) =
                py::reinterpret_steal<py::object>(PyCFunction_New(&g_broke_def, nullptr));
        }

    } // namespace loop_region

    void observe_cell_globals(region_record& rec, const frame_hook::frame_view& frame)
    {
        for (size_t i = 0; i < rec.loop_locals.size(); ++i)
        {
            // A loop inside a function: its locals, under the converter's
            // paths for them (the bare name).
            rec.prof.observe(rec.loop_locals[i], frame.locals[i]);
        }
        for (const std::string& name : rec.cell_names)
        {
            py::str key(name);
            PyObject* value = PyDict_GetItemWithError(frame.globals, key.ptr()); // borrowed
            if (value == nullptr && !PyErr_Occurred())
            {
                value = PyDict_GetItemWithError(frame.builtins, key.ptr()); // borrowed
            }
            // An interrupt raised in a user key's __eq__ in the globals:
            // enter_region raises it.
            clear_error_or_throw_interrupt();
            rec.prof.observe(global_path(name), value);
        }
        for (const std::string& path : rec.loop_targets)
        {
            rec.prof.relax_int(path);
        }
    }
} // namespace specula::engine
