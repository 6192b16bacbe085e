#include "engine/python_module.hpp"

#include <sstream>

#include "engine/engine_core.hpp"
#include "engine/introspection.hpp"
#include "engine/loop_region.hpp"
#include "engine/runner.hpp"

namespace specula::engine
{
    namespace
    {
        [[noreturn]] void lookup_error(const std::string& what)
        {
            PyErr_SetString(PyExc_LookupError, what.c_str());
            throw py::error_already_set();
        }

        // The region named, or the function of `file` defined last at or
        // above `line`; LookupError when there is none.
        const region_record& lookup(const py::object& name, const py::object& file,
                                    const py::object& line)
        {
            std::string n = name.is_none() ? "" : py::str(name).cast<std::string>();
            std::string f = file.is_none() ? "" : py::str(file).cast<std::string>();
            int l = line.is_none() ? 0 : line.cast<int>();
            if (n.empty() && f.empty())
            {
                throw py::value_error("give a function name, or a file and a line");
            }
            const region_record* rec = engine_core::instance().find(n, f, l);
            if (rec == nullptr)
            {
                std::string what = n.empty()
                                       ? "no function at or above " + f + ":" + std::to_string(l)
                                       : "no function named '" + n + "'";
                lookup_error(what + " has been called with the engine on (since the last reset)");
            }
            return *rec;
        }
    } // namespace

    void define_bindings(py::module_& m)
    {
        m.doc() = "Specula's speculative engine (shared with the kernel when inside it)";
        m.def(
            "enable",
            []()
            {
                if (!engine_core::instance().enable(/*force=*/false))
                {
                    throw py::error_already_set();
                }
            },
            "Install the frame hook (no-op under SPECULA_ENGINE=off).");
        m.def(
            "disable", []() { engine_core::instance().disable(); }, "Remove the frame hook.");
        m.def("enabled", []() { return engine_core::instance().enabled(); });
        m.def(
            "hook_state", []() { return engine_core::instance().hook_state(); },
            "'off', 'waiting for numpy', 'active' or 'parked' (see engine/README.md).");
        m.def(
            "report", []() { return engine_core::instance().report(); },
            "One dict per region that was ever hot.");
        m.def("report_table", &report_table);
        m.def(
            "numerics", []() { return numerics_name(engine_core::instance().settings().numerics); },
            "The numerics mode: 'fast' or 'exact'.");
        m.def(
            "set_numerics",
            [](const std::string& mode)
            {
                numerics_mode m;
                if (!parse_numerics(mode.c_str(), m))
                {
                    throw py::value_error("numerics mode must be 'fast' or 'exact', not '" + mode +
                                          "'");
                }
                return engine_core::instance().set_numerics(m);
            },
            py::arg("mode"),
            "Switch the numerics mode; returns how many compiled specialisations were dropped.");
        m.def(
            "reset", []() { engine_core::instance().reset(); },
            "Forget every region, specialisation and counter.");
        m.def(
            "explain",
            [](const py::object& name, const py::object& file, const py::object& line)
            { return explain_region(lookup(name, file, line)); },
            py::arg("name") = py::none(), py::arg("file") = py::none(),
            py::arg("line") = py::none(),
            "Why a function compiled or not: its state, counters, specialisations and guards.");
        m.def(
            "graph_dot",
            [](const py::object& name, const py::object& file, const py::object& line)
            {
                std::string why;
                std::optional<std::string> dot = graph_dot_of(lookup(name, file, line), why);
                if (!dot)
                {
                    lookup_error(why);
                }
                return *dot;
            },
            py::arg("name") = py::none(), py::arg("file") = py::none(),
            py::arg("line") = py::none(),
            "The Graphviz DOT text of the function's most recently used graph.");
        m.def("install_loop_builtins", &loop_region::install_builtins,
              "Put the entry points of loops in cells into builtins (specula.cell_loops).");
        m.def(
            "_inject_cost",
            [](const std::string& name, const std::string& match, double graph_s, double cpython_s)
            { return engine_core::instance().inject_cost(name, match, graph_s, cpython_s); },
            py::arg("name"), py::arg("situation"), py::arg("graph_s"), py::arg("cpython_s"),
            "Tests: specialisations of region `name` whose situation contains `situation` record "
            "these call times instead of the clock's (deterministic cost verdicts).");
        m.def("_fail_after_commit", &fail_after_commit, py::arg("n"),
              "Tests: the n-th graph run from now that commits (1: the next) throws an internal "
              "error right after its commit (the engine must raise it, not run the code again).");
        m.def("threshold", []() { return engine_core::instance().settings().threshold; });
    }

    void register_embedded_module()
    {
        py::module_ sys = py::module_::import("sys");
        py::dict modules = sys.attr("modules");
        if (modules.contains("_specula_engine"))
        {
            return;
        }
        py::module_ m =
            py::module_::create_extension_module("_specula_engine", nullptr, new PyModuleDef());
        define_bindings(m);
        modules["_specula_engine"] = m;
    }

    std::string report_table()
    {
        py::list rows = engine_core::instance().report();
        std::ostringstream out;
        out << "region                          state            runs  fallbacks  misses  asserts  "
               "reason\n";
        for (py::handle row : rows)
        {
            std::string name = py::str(row["name"]);
            std::string state = py::str(row["state"]);
            std::string reason = row["reason"].is_none() ? "" : std::string(py::str(row["reason"]));
            out.width(32);
            out << std::left << name;
            out.width(17);
            out << state;
            out.width(6);
            out << py::str(row["graph_runs"]).cast<std::string>();
            out.width(11);
            out << py::str(row["fallbacks"]).cast<std::string>();
            out.width(8);
            out << py::str(row["guard_misses"]).cast<std::string>();
            out.width(9);
            out << py::str(row["assert_failures"]).cast<std::string>();
            out << reason << "\n";
        }
        return out.str();
    }
} // namespace specula::engine
