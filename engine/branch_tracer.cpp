#include "engine/branch_tracer.hpp"

#include <pybind11/pybind11.h>

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace specula::engine::branch_tracer
{
    namespace py = pybind11;

    namespace
    {
        // One `if`/`while`/`for` statement, absolute lines. Its test (or a
        // for's header) spans [first, last]; leaving the span for `body`
        // means the test held, for any other line (or the frame's return)
        // that it failed. A loop ends at `end`: a line past it without a
        // failed test is a `break` or a `return` out of the loop.
        struct point
        {
            int first = 0;
            int last = 0;
            int body = 0;
            int end = 0;
            bool loop = false;
            std::string key;
        };

        struct code_points
        {
            std::vector<point> points;
            bool decides = false; // has an `if` or `while` (what the converter asks about)
            std::unordered_map<int, size_t> of_line; // test line -> point
        };

        struct frame_state
        {
            int prev = -1;                       // line of the frame's previous event
            bool raised = false;                 // an exception is passing through the frame
            std::map<size_t, std::int64_t> open; // loop point -> trips of this entry
        };

        struct state
        {
            profile* prof = nullptr;
            py::object filename;
            // Code objects seen, held so their addresses stay theirs.
            std::map<PyCodeObject*, std::pair<py::object, code_points>> codes;
            std::map<PyFrameObject*, frame_state> frames;
            std::int64_t events = 0;
            bool stopped = false; // past the event budget: tracing removed
        };

        // Line events traced per profiling run: CPython's tracing slows
        // pure-Python loops several times, so a long run is traced only in
        // part. What was seen stays true; an outcome not seen yet only makes
        // an assert fail later (the call then runs in CPython).
        constexpr std::int64_t max_events = 100000;

        state* g_state = nullptr;

        std::string node_type(py::handle node)
        {
            return py::str(node.get_type().attr("__name__"));
        }

        // The statements of a plain function of the traced file, parsed as
        // the converter parses them (inspect.getsourcelines, dedented), so
        // both name a statement by the same "file:line".
        code_points parse_points(PyCodeObject* code)
        {
            code_points out;
            py::module_ ast = py::module_::import("ast");
            py::tuple lines_start = py::module_::import("inspect").attr("getsourcelines")(
                py::handle(reinterpret_cast<PyObject*>(code)));
            py::object text = py::str("").attr("join")(lines_start[0]);
            text = py::module_::import("textwrap").attr("dedent")(text);
            const int first = lines_start[1].cast<int>();
            const std::string file = py::str(code->co_filename);
            for (py::handle n : ast.attr("walk")(ast.attr("parse")(text)))
            {
                const std::string kind = node_type(n);
                if (kind != "If" && kind != "While" && kind != "For")
                {
                    continue;
                }
                point p;
                p.first = first + n.attr("lineno").cast<int>() - 1;
                p.body = first + py::list(n.attr("body"))[0].attr("lineno").cast<int>() - 1;
                p.last = p.body - 1;
                p.end = first + n.attr("end_lineno").cast<int>() - 1;
                p.loop = kind != "If";
                out.decides = out.decides || kind != "For";
                p.key = file + ":" + std::to_string(p.first);
                if (p.body <= p.first)
                {
                    continue; // `if c: x = 1` on one line: events cannot tell the sides apart
                }
                for (int line = p.first; line <= p.last; ++line)
                {
                    out.of_line.emplace(line, out.points.size());
                }
                out.points.push_back(std::move(p));
            }
            return out;
        }

        // The points of `code` (borrowed), parsed on its first event: only
        // named functions of the traced file (comprehension and lambda
        // frames run lines of the enclosing statement). Parsing runs Python
        // (inspect), where the SIGINT handler may raise: that
        // KeyboardInterrupt is the user's and is thrown on, with nothing
        // cached for `code` (py_errors.hpp).
        const code_points* points_of(PyCodeObject* code)
        {
            auto found = g_state->codes.find(code);
            if (found != g_state->codes.end())
            {
                return &found->second.second;
            }
            auto& entry = g_state->codes[code];
            entry.first = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(code));
            const char* name = PyUnicode_AsUTF8(code->co_name);
            if (name == nullptr || name[0] == '<' ||
                PyUnicode_Compare(code->co_filename, g_state->filename.ptr()) != 0)
            {
                PyErr_Clear();
                return &entry.second;
            }
            try
            {
                entry.second = parse_points(code);
            }
            catch (py::error_already_set& e)
            {
                if (!e.matches(PyExc_Exception))
                {
                    g_state->codes.erase(code);
                    throw;
                }
                // No source (a function made by exec): nothing to observe.
                entry.second = code_points{};
            }
            catch (const py::cast_error&)
            {
                entry.second = code_points{};
            }
            return &entry.second;
        }

        // The frame moved from its previous line to `line` (-1: it returned).
        void step(const code_points& cp, frame_state& fs, int line)
        {
            profile& prof = *g_state->prof;
            auto test = cp.of_line.find(fs.prev);
            if (fs.prev >= 0 && test != cp.of_line.end())
            {
                const point& p = cp.points[test->second];
                if (line < p.first || line > p.last)
                {
                    const bool taken = line == p.body;
                    prof.record_branch(p.key, taken);
                    if (p.loop && taken)
                    {
                        ++fs.open[test->second];
                    }
                    else if (p.loop)
                    {
                        auto open = fs.open.find(test->second);
                        prof.record_trips(p.key, open == fs.open.end() ? 0 : open->second);
                        if (open != fs.open.end())
                        {
                            fs.open.erase(open);
                        }
                    }
                }
            }
            for (auto open = fs.open.begin(); open != fs.open.end();)
            {
                const point& p = cp.points[open->first];
                if (line < p.first || line > p.end)
                {
                    prof.record_trips(p.key, open->second);
                    open = fs.open.erase(open);
                }
                else
                {
                    ++open;
                }
            }
            fs.prev = line;
        }

        // Called by CPython with tracing off, so the Python it runs (parsing
        // a callee's source) produces no events.
        int trace(PyObject*, PyFrameObject* frame, int what, PyObject*)
        {
            if (g_state == nullptr || g_state->stopped ||
                (what != PyTrace_CALL && what != PyTrace_LINE && what != PyTrace_RETURN &&
                 what != PyTrace_EXCEPTION))
            {
                return 0;
            }
            if (++g_state->events > max_events)
            {
                // Loops still open get no trip count (their entry is unfinished).
                g_state->stopped = true;
                g_state->frames.clear();
                PyEval_SetTrace(nullptr, nullptr);
                return 0;
            }
            PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
            PyErr_Fetch(&type, &value, &tb);             // an exception event's own exception
            PyCodeObject* code = PyFrame_GetCode(frame); // new reference
            const code_points* cp = nullptr;
            try
            {
                cp = points_of(code);
            }
            catch (py::error_already_set& e)
            {
                // The user's interrupt: CPython raises it in this frame, in
                // place of the event's own exception (a trace function's
                // error replaces it).
                Py_DECREF(code);
                Py_XDECREF(type);
                Py_XDECREF(value);
                Py_XDECREF(tb);
                e.restore();
                return -1;
            }
            catch (...)
            {
                cp = nullptr;
            }
            Py_DECREF(code); // the cache holds it
            PyErr_Restore(type, value, tb); // steals the three
            if (cp == nullptr || cp->points.empty())
            {
                return 0;
            }
            switch (what)
            {
            case PyTrace_CALL:
                g_state->frames[frame] = frame_state{}; // a frame object may be reused
                break;
            case PyTrace_LINE:
            {
                frame_state& fs = g_state->frames[frame];
                if (fs.raised)
                {
                    fs.raised = false; // caught here: no test outcome across it
                    fs.prev = -1;
                }
                step(*cp, fs, PyFrame_GetLineNumber(frame));
                break;
            }
            case PyTrace_EXCEPTION:
                g_state->frames[frame].raised = true;
                break;
            case PyTrace_RETURN:
            {
                auto fs = g_state->frames.find(frame);
                if (fs != g_state->frames.end())
                {
                    if (!fs->second.raised)
                    {
                        step(*cp, fs->second, -1);
                    }
                    g_state->frames.erase(fs);
                }
                break;
            }
            default:
                break;
            }
            return 0;
        }
    } // namespace

    bool begin(PyCodeObject* code, profile& prof)
    {
        PyThreadState* ts = PyThreadState_Get();
        if (g_state != nullptr || ts->c_tracefunc != nullptr || ts->tracing != 0)
        {
            return false;
        }
        auto st = std::make_unique<state>();
        st->prof = &prof;
        st->filename = py::reinterpret_borrow<py::object>(code->co_filename);
        g_state = st.get();
        const code_points* cp = nullptr;
        try
        {
            cp = points_of(code);
        }
        catch (...)
        {
            g_state = nullptr; // the user's interrupt: raised at the call (engine_core)
            throw;
        }
        if (!cp->decides)
        {
            g_state = nullptr;
            return false;
        }
        st.release(); // owned by g_state until end()
        PyEval_SetTrace(trace, nullptr);
        return true;
    }

    void end()
    {
        if (g_state == nullptr)
        {
            return;
        }
        PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
        PyErr_Fetch(&type, &value, &tb); // the run's own exception, if it raised
        // The code may have installed its own trace function: leave it.
        if (PyThreadState_Get()->c_tracefunc == trace)
        {
            PyEval_SetTrace(nullptr, nullptr);
        }
        // Loops still open belong to frames that did not return (suspended
        // generators): no trip count for them.
        delete g_state;
        g_state = nullptr;
        PyErr_Restore(type, value, tb);
    }

    bool owns(Py_tracefunc f)
    {
        return f == trace;
    }
} // namespace specula::engine::branch_tracer
