// The PEP 523 frame-evaluation hook: the one file that includes CPython
// internals (it needs _PyInterpreterFrame's layout), and no pybind11.
//
// Hot path for cold code: one extra-slot lookup and one decrement. Every path
// ends in one of three named exits: run_default, run_compiled, fail.
#define Py_BUILD_CORE
#include <Python.h>
#include <internal/pycore_frame.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "backends/thread_signals.hpp"
#include "engine/frame_hook.hpp"
#include "engine/thread_rules.hpp"

namespace specula::engine::frame_hook
{
    namespace
    {
        constexpr int generator_like_flags =
            CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE;

        // Stored in the extra slot of code that is never compiled, so the
        // classification runs once per code object.
        hook_slot g_never_slot{never_again};

        callbacks g_callbacks{};
        Py_ssize_t g_extra_index = -1;
        bool g_installed = false;
        _PyFrameEvalFunction g_previous = nullptr;
        // The engine's own Python work (getsource, ast, commits) is never
        // profiled or compiled; nor is another thread's code that runs while
        // that work lets the GIL go (the engine is not re-entrant).
        bool g_in_engine = false;

        // Parking (see park_policy). Counts hook calls down to the end of a
        // window; `g_window_busy` notes a call of code the engine still counts
        // or runs (a slot that is not terminal).
        park_policy g_policy{};
        std::int64_t g_window_left = 0;
        bool g_window_busy = false;
        std::atomic<bool> g_parked{false};
        bool g_finalizing = false;

        PyObject* specula_eval_frame(PyThreadState* tstate, _PyInterpreterFrame* frame,
                                     int throwflag);

        void set_eval(bool ours)
        {
            PyInterpreterState* interp = PyThreadState_Get()->interp;
            _PyInterpreterState_SetEvalFrameFunc(interp, ours ? specula_eval_frame : g_previous);
        }

        // The timer that re-installs a parked hook. It takes the GIL to do so:
        // CPython 3.11's Py_AddPendingCall from a thread that is not the main
        // one does not set the eval breaker, so a pending call would wait for
        // the next GIL switch, which a busy single-threaded program never has.
        class rearm_timer
        {
        public:
            void start(int period_ms)
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                m_period = std::chrono::milliseconds(period_ms > 0 ? period_ms : 1);
                if (!m_thread.joinable())
                {
                    m_stop = false;
                    // The timer inherits this mask: no process signal may
                    // land on it (backends/thread_signals.hpp).
                    backends::async_signals_blocked quiet;
                    m_thread = std::thread([this] { loop(); });
                }
                m_wake.notify_all(); // the hook just parked: start counting a period
            }

            // Requires the GIL, which it releases while the thread ends (the
            // thread may be waiting for it).
            void stop()
            {
                {
                    std::lock_guard<std::mutex> lock(m_mutex);
                    m_stop = true;
                }
                m_wake.notify_all();
                if (m_thread.joinable())
                {
                    Py_BEGIN_ALLOW_THREADS m_thread.join();
                    Py_END_ALLOW_THREADS
                }
            }

        private:
            static void rearm() { frame_hook::rearm(); }

            void loop()
            {
                std::unique_lock<std::mutex> lock(m_mutex);
                while (!m_stop)
                {
                    // Asleep while the hook is installed: the thread only
                    // wakes for a parked hook, once per period.
                    if (!g_parked)
                    {
                        m_wake.wait(lock, [this] { return m_stop || g_parked; });
                        continue;
                    }
                    m_wake.wait_for(lock, m_period, [this] { return m_stop; });
                    if (m_stop || !g_parked)
                    {
                        continue;
                    }
                    // Never wait for the GIL while holding the mutex: stop()
                    // takes the mutex with the GIL held.
                    lock.unlock();
                    PyGILState_STATE gil = PyGILState_Ensure();
                    rearm();
                    PyGILState_Release(gil);
                    lock.lock();
                }
            }

            std::mutex m_mutex;
            std::condition_variable m_wake;
            std::chrono::milliseconds m_period{50};
            bool m_stop = false;
            std::thread m_thread;
        };

        // Never destroyed: the thread is stopped at Python's exit, before
        // static destructors.
        rearm_timer& timer()
        {
            static rearm_timer* t = new rearm_timer();
            return *t;
        }

        PyObject* at_python_exit(PyObject*, PyObject*)
        {
            g_finalizing = true;
            timer().stop();
            Py_RETURN_NONE;
        }

        PyMethodDef g_exit_method = {"_specula_hook_exit", at_python_exit, METH_NOARGS, nullptr};

        // Stops the timer thread before the interpreter goes away.
        void register_exit_handler()
        {
            static bool done = false;
            if (done)
            {
                return;
            }
            PyObject* atexit = PyImport_ImportModule("atexit");      // new reference
            PyObject* fn = PyCFunction_New(&g_exit_method, nullptr); // new reference
            PyObject* r = (atexit != nullptr && fn != nullptr)
                              ? PyObject_CallMethod(atexit, "register", "O", fn) // new reference
                              : nullptr;
            done = r != nullptr;
            Py_XDECREF(r);
            Py_XDECREF(fn);
            Py_XDECREF(atexit);
            PyErr_Clear();
        }

        // End of a window: park when nothing the engine holds needs the hook.
        void end_window()
        {
            bool quiet = !g_window_busy;
            g_window_left = g_policy.window;
            g_window_busy = false;
            if (quiet)
            {
                g_parked = true;
                set_eval(false);
                timer().start(g_policy.rearm_ms);
            }
        }

        // Called by CPython when a code object with a slot dies.
        void free_extra(void* extra)
        {
            auto* slot = static_cast<hook_slot*>(extra);
            if (slot != nullptr && slot != &g_never_slot && g_callbacks.release != nullptr)
            {
                g_callbacks.release(slot);
            }
        }

        // Returns a new reference or NULL with an exception set.
        PyObject* run_default(PyThreadState* tstate, _PyInterpreterFrame* frame, int throwflag)
        {
            return _PyEval_EvalFrameDefault(tstate, frame, throwflag);
        }

        // CPython runs the frame while `slot` counts it as running, so calls
        // of the same code made inside it are seen as nested (new reference
        // or NULL with an exception set, as run_default).
        PyObject* run_in_cpython(hook_slot* slot, PyThreadState* tstate, _PyInterpreterFrame* frame,
                                 int throwflag)
        {
            ++slot->cpython_runs;
            PyObject* out = run_default(tstate, frame, throwflag);
            --slot->cpython_runs;
            return out;
        }

        hook_slot* slot_of(PyCodeObject* code)
        {
            void* extra = nullptr;
            if (_PyCode_GetExtra(reinterpret_cast<PyObject*>(code), g_extra_index, &extra) < 0)
            {
                PyErr_Clear();
                return &g_never_slot;
            }
            if (extra != nullptr)
            {
                return static_cast<hook_slot*>(extra);
            }
            hook_slot* slot = g_callbacks.classify(code);
            if (slot == nullptr)
            {
                slot = &g_never_slot;
            }
            if (_PyCode_SetExtra(reinterpret_cast<PyObject*>(code), g_extra_index, slot) < 0)
            {
                PyErr_Clear();
            }
            return slot;
        }

        // Borrowed frame; returns a new reference or NULL with an exception set.
        PyObject* specula_eval_frame(PyThreadState* tstate, _PyInterpreterFrame* frame,
                                     int throwflag)
        {
            PyCodeObject* code = frame->f_code;
            if (throwflag != 0 || g_in_engine || frame->owner != FRAME_OWNED_BY_THREAD ||
                (code->co_flags & generator_like_flags) != 0 || thread_rules::observed(tstate))
            {
                return run_default(tstate, frame, throwflag);
            }
            hook_slot* slot = slot_of(code);
            // Windows count calls of the program's own code: library code
            // (an import, IPython between cells) neither parks nor holds the
            // hook. Terminal slots sit near never_again.
            // A recursive call inside a CPython run of the same code is part
            // of that run: profiled, compiled, run as a graph and timed at the
            // outermost call only (a subtree's call is no sample for a graph
            // run over the whole tree), and it does not hold the hook either.
            const bool nested = slot->cpython_runs > 0;
            if (g_policy.window > 0 && slot != &g_never_slot)
            {
                g_window_busy |= !nested && slot->countdown < never_again / 2;
                if (--g_window_left <= 0)
                {
                    end_window();
                }
            }
            if (nested || slot == &g_never_slot)
            {
                return run_default(tstate, frame, throwflag);
            }
            if (--slot->countdown >= 0)
            {
                return run_in_cpython(slot, tstate, frame, throwflag);
            }
            frame_view view{reinterpret_cast<PyObject*>(frame->f_func), frame->f_globals,
                            frame->f_builtins, frame->localsplus, code};
            PyObject* result = nullptr;
            frame_exit exit = frame_exit::run_default;
            {
                busy_scope engine_work;
                exit = g_callbacks.enter(slot, view, &result);
            }
            switch (exit)
            {
            case frame_exit::run_compiled:
                return result;
            case frame_exit::fail:
                return nullptr;
            case frame_exit::run_default:
                break;
            }
            // Timed so the engine can compare CPython with its graphs (two
            // clock reads, only on calls the engine already saw).
            auto start = std::chrono::steady_clock::now();
            PyObject* out = run_in_cpython(slot, tstate, frame, throwflag);
            if (g_callbacks.ran_default == nullptr)
            {
                return out;
            }
            g_callbacks.ran_default(
                slot,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            return out;
        }
    } // namespace

    bool install(const callbacks& cb, park_policy policy)
    {
        if (g_extra_index < 0)
        {
            g_extra_index = _PyEval_RequestCodeExtraIndex(free_extra);
            if (g_extra_index < 0)
            {
                return false;
            }
        }
        g_callbacks = cb;
        g_policy = policy;
        g_window_left = policy.window;
        g_window_busy = false;
        if (policy.window > 0)
        {
            register_exit_handler();
        }
        if (!g_installed)
        {
            g_previous = _PyInterpreterState_GetEvalFrameFunc(PyThreadState_Get()->interp);
            g_installed = true;
        }
        g_parked = false;
        set_eval(true);
        return true;
    }

    void uninstall()
    {
        if (!g_installed || !Py_IsInitialized())
        {
            return;
        }
        set_eval(false);
        g_installed = false;
        g_parked = false;
    }

    bool busy()
    {
        return g_in_engine;
    }

    busy_scope::busy_scope() : m_was(g_in_engine)
    {
        g_in_engine = true;
    }

    busy_scope::~busy_scope()
    {
        g_in_engine = m_was;
    }

    bool installed()
    {
        return g_installed;
    }

    void rearm()
    {
        if (g_installed && g_parked && !g_finalizing)
        {
            g_parked = false;
            g_window_left = g_policy.window;
            g_window_busy = false;
            set_eval(true);
        }
    }

    bool active()
    {
        return g_installed && !g_parked;
    }
} // namespace specula::engine::frame_hook
