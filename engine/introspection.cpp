#include "engine/introspection.hpp"

#include <algorithm>
#include <sstream>

#include "engine/numpy_api.hpp"
#include "engine/specialisation.hpp"
#include "ir/dot.hpp"

namespace specula::engine
{
    namespace
    {
        const char* kind_name(guard_kind k)
        {
            switch (k)
            {
            case guard_kind::type_is:
                return "type_is";
            case guard_kind::identity:
                return "identity";
            case guard_kind::array_meta:
                return "array_meta";
            case guard_kind::int_value:
                return "int_value";
            case guard_kind::float_value:
                return "float_value";
            case guard_kind::str_value:
                return "str_value";
            case guard_kind::no_overlap:
                return "no_overlap";
            case guard_kind::distinct:
                return "distinct";
            case guard_kind::int_range:
                return "int_range";
            case guard_kind::length:
                return "length";
            case guard_kind::int_predicate:
                return "int_predicate";
            case guard_kind::dict_keys:
                return "dict_keys";
            case guard_kind::overlap:
                return "overlap";
            case guard_kind::same:
                return "same";
            }
            return "?";
        }

        // repr() on one short line; "?" when it raises. The repr of a guarded
        // object may run Python code (a metaclass's __repr__, a module's),
        // where the SIGINT handler may raise: that KeyboardInterrupt is the
        // user's and is thrown on, out of explain() (py_errors.hpp).
        std::string short_repr(const py::object& o)
        {
            if (!o)
            {
                return "?";
            }
            std::string s;
            try
            {
                s = py::repr(o);
            }
            catch (py::error_already_set& e)
            {
                if (!e.matches(PyExc_Exception))
                {
                    throw;
                }
                return "?";
            }
            return s.size() > 60 ? s.substr(0, 57) + "..." : s;
        }

        std::string array_text(const guard& g)
        {
            std::optional<ir::dtype> t = dtype_of_type_num(g.type_num);
            std::string s =
                t ? std::string(ir::dtype_name(*t)) : "type_num " + std::to_string(g.type_num);
            s += "[";
            for (std::size_t i = 0; i < g.dims.size(); ++i)
            {
                s += (i ? "," : "") + (g.dims[i] >= 0 ? std::to_string(g.dims[i])
                                                      : "?" + std::to_string(-1 - g.dims[i]));
            }
            s += "]";
            s += g.c_contiguous ? " C-contiguous" : " strided";
            return s + (g.writeable ? ", written" : "");
        }

        // What the guard assumes, stated positively (guard::explain says how
        // a failing value broke it).
        std::string assumption(const guard& g)
        {
            switch (g.kind)
            {
            case guard_kind::type_is:
                return "type(" + g.what + ") is " +
                       (g.p_expected != nullptr
                            ? reinterpret_cast<PyTypeObject*>(g.p_expected)->tp_name
                            : "?");
            case guard_kind::identity:
                return g.what + " is " + short_repr(g.expected);
            case guard_kind::array_meta:
                return g.what + " is an ndarray " + array_text(g);
            case guard_kind::int_value:
                return g.what + " == " + std::to_string(g.int_value);
            case guard_kind::float_value:
            case guard_kind::str_value:
                return g.what + " == " + short_repr(g.expected);
            case guard_kind::int_range:
                return g.what + " in [" + std::to_string(g.int_value) + ", " +
                       std::to_string(g.int_hi) + "]";
            case guard_kind::length:
                return "len(" + g.what + ") == " + std::to_string(g.int_value);
            case guard_kind::int_predicate:
                return g.what + (g.int_value != 0 ? " is true" : " is false");
            case guard_kind::dict_keys:
                return "keys of " + g.what + " are " + short_repr(g.expected) + " in this order";
            case guard_kind::no_overlap:
            case guard_kind::distinct:
            case guard_kind::overlap:
            case guard_kind::same:
                return g.what;
            }
            return g.what;
        }

        void write_guard(std::ostringstream& out, const guard& g)
        {
            out << "      guard " << kind_name(g.kind) << ": " << assumption(g);
            if (g.failures > 0)
            {
                out << "  (failed " << g.failures << "x; on failure: " << g.explain(nullptr) << ")";
            }
            out << "\n";
        }

        std::size_t node_count(const specialisation& s)
        {
            std::size_t n = 0;
            for (const std::string& name : s.module->names())
            {
                n += s.module->find(name)->num_nodes();
            }
            return n;
        }

        std::string ms(double seconds)
        {
            std::ostringstream out;
            out.precision(3);
            out << seconds * 1e3 << " ms";
            return out.str();
        }

        // The cost verdict of one specialisation: who won and on what.
        void write_cost(std::ostringstream& out, const spec_cost& c)
        {
            std::optional<double> g = c.graph.median_s();
            std::optional<double> p = c.cpython.median_s();
            out << "      cost: ";
            switch (c.verdict)
            {
            case cost_verdict::undecided:
                out << "not judged yet";
                break;
            case cost_verdict::graph:
                out << "graph wins";
                break;
            case cost_verdict::cpython:
                out << "CPython wins";
                break;
            }
            out << "; median graph " << c.unit << " " << (g ? ms(*g) : "not timed")
                << ", median CPython " << c.unit << " " << (p ? ms(*p) : "not timed") << " ("
                << c.cpython.count() << " timed)";
            if (c.on_probation())
            {
                out << "; loss " << c.losses << " of " << num_cost_trials
                    << ", the graph is tried again after "
                    << std::max<std::int64_t>(0, c.retry_at - c.cpython.count())
                    << " more CPython call(s)";
            }
            if (std::optional<double> saved = c.time_saved_s())
            {
                out << "; time saved " << ms(*saved);
            }
            out << "\n";
        }

        void write_specialisation(std::ostringstream& out, const specialisation& s, std::size_t i,
                                  std::size_t total)
        {
            out << "  specialisation " << i + 1 << " of " << total << " (" << situation_of(s)
                << "): ";
            if (s.fallback_only)
            {
                out << "stays in CPython for calls like this (" << s.fallback_reason << ")";
                out << (s.runs > 0 ? ", after " + std::to_string(s.runs) + " graph run(s)" : "")
                    << "\n";
            }
            else
            {
                out << s.runs << " graph run(s), " << node_count(s) << " IR node(s), "
                    << s.guards.count() << " guard(s), " << s.exit_reasons.size() << " assert(s)"
                    << (s.numerics_dependent ? ", float32 (depends on the numerics mode)" : "")
                    << "\n";
            }
            if (!s.fallback_only || s.cost->verdict == cost_verdict::cpython)
            {
                write_cost(out, *s.cost);
            }
            for (const auto& list : s.guards.per_source)
            {
                for (const guard& g : list)
                {
                    write_guard(out, g);
                }
            }
            for (const guard& g : s.guards.cross)
            {
                write_guard(out, g);
            }
            for (std::size_t e = 0; e < s.exit_reasons.size(); ++e)
            {
                auto it = s.exit_failures.find(static_cast<std::uint32_t>(e));
                out << "      assert " << e << ": " << s.exit_reasons[e];
                if (it != s.exit_failures.end() && it->second > 0)
                {
                    out << "  (failed " << it->second << "x)";
                }
                out << "\n";
            }
        }

        std::string verdict(const region& r)
        {
            const config& c = r.settings();
            switch (r.state())
            {
            case region_state::cold:
                return r.ever_hot()
                           ? "cold"
                           : "cold: called fewer than " + std::to_string(c.threshold) +
                                 " times (SPECULA_THRESHOLD) with the engine on, so never profiled";
            case region_state::profiling:
                return "profiling: " + std::to_string(r.counters().profiled_calls) + " of " +
                       std::to_string(c.effective_profiling_calls()) + " profiling calls observed";
            case region_state::compiled:
                return "compiled: converted to IR after " +
                       std::to_string(r.counters().profiled_calls) + " profiling call(s); " +
                       std::to_string(r.counters().compiles) + " compile(s) so far";
            case region_state::not_convertible:
                return "stays in CPython: " + r.reason().value_or("not convertible");
            case region_state::blacklisted:
                return "stays in CPython for good: " + r.reason().value_or("blacklisted");
            }
            return state_name(r.state());
        }
    } // namespace

    std::string situation_of(const specialisation& spec)
    {
        std::string text;
        auto add = [&text](const guard& g)
        {
            switch (g.kind)
            {
            case guard_kind::int_value:
            case guard_kind::float_value:
            case guard_kind::str_value:
            case guard_kind::int_range:
            case guard_kind::array_meta:
            case guard_kind::length:
            case guard_kind::dict_keys:
                text += (text.empty() ? "" : ", ") + assumption(g);
                break;
            default:
                break;
            }
        };
        for (const auto& list : spec.guards.per_source)
        {
            for (const guard& g : list)
            {
                add(g);
            }
        }
        for (const guard& g : spec.guards.cross)
        {
            if (g.kind == guard_kind::overlap)
            {
                text += (text.empty() ? "" : ", ") + g.what + " overlap";
            }
        }
        if (text.size() > 160)
        {
            text = text.substr(0, 157) + "...";
        }
        return text.empty() ? "any call" : text;
    }

    namespace
    {
        // One line on a loop's chunks (loop_chunks.hpp).
        void write_chunks(std::ostringstream& out, const loop_chunk_record& c)
        {
            out << "  chunks: ";
            if (!c.chunkable())
            {
                out << "none (not a while loop nor a for loop with one target name or a tuple of "
                       "names)\n";
                return;
            }
            out << c.chunks << " chunk(s) ran " << c.iterations << " iteration(s) in " << c.time_s
                << " s, " << c.failures << " failed (replayed one by one)";
            if (!c.reason.empty())
            {
                out << "; " << (c.refused ? "no (more) chunks: " : "") << c.reason;
            }
            out << "\n";
        }
    } // namespace

    std::string explain_region(const region_record& rec)
    {
        const region& r = *rec.r;
        std::ostringstream out;
        out << r.name() << " (" << rec.kind << " at " << r.file() << ":" << r.line() << ")";
        if (!r.code_alive())
        {
            out << ", code freed (redefined or deleted)";
        }
        out << "\n  " << verdict(r) << "\n";
        const region_counters& c = r.counters();
        out << "  counters: " << c.graph_runs << " graph run(s), " << c.fallbacks
            << " fallback(s), " << c.cost_cpython_calls
            << " call(s) sent to CPython by the cost check, " << c.guard_misses
            << " guard miss(es), " << c.assert_failures << " assert failure(s), " << c.compiles
            << " compile(s), " << c.dropped_specialisations << " dropped specialisation(s)\n";
        const region_timing& t = r.timing();
        out << "  time: " << t.graph_s << " s in " << t.graph_calls << " graph call(s), "
            << t.cpython_s << " s in " << t.cpython_calls << " timed CPython call(s), "
            << t.compile_s << " s converting and compiling\n";
        if (rec.cell_body && std::string(rec.kind) == "loop")
        {
            write_chunks(out, rec.chunk);
        }
        bool terminal =
            r.state() == region_state::not_convertible || r.state() == region_state::blacklisted;
        if (!terminal)
        {
            out << "  last failure: " << r.reason().value_or("none") << "\n";
        }
        const auto& specs = r.specialisations();
        if (specs.empty())
        {
            out << "  no specialisation\n";
        }
        for (std::size_t i = 0; i < specs.size(); ++i)
        {
            write_specialisation(out, *specs[i], i, specs.size());
        }
        return out.str();
    }

    std::optional<std::string> graph_dot_of(const region_record& rec, std::string& why)
    {
        const region& r = *rec.r;
        const auto& specs = r.specialisations();
        for (std::size_t i = 0; i < specs.size(); ++i)
        {
            const specialisation& s = *specs[i];
            if (s.fallback_only || !s.module)
            {
                continue;
            }
            // The graph the executable runs (a backend may have rewritten it).
            const ir::graph* g = s.exe ? s.exe->main().p_graph : s.module->find("main");
            if (g != nullptr)
            {
                return ir::to_dot(*g);
            }
        }
        why = r.name() + " has no compiled graph (" + verdict(r) + ")";
        return std::nullopt;
    }
} // namespace specula::engine
