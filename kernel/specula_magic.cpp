#include "kernel/specula_magic.hpp"

#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace specula::kernel
{
    namespace
    {
        constexpr const char* usage =
            "usage: %specula report [--json] | on | off | exact | fast | reset | "
            "explain <function | In [n], line k> | graph <function | In [n], line k>";

        [[noreturn]] void usage_error(const std::string& message)
        {
            py::object error = py::module_::import("IPython.core.error").attr("UsageError");
            PyErr_SetString(error.ptr(), message.c_str());
            throw py::error_already_set();
        }

        py::module_ engine_module()
        {
            try
            {
                return py::module_::import("specula");
            }
            catch (py::error_already_set& e)
            {
                usage_error("the Specula engine is not available in this kernel (" +
                            std::string(py::str(e.value())) + ")");
            }
        }

        std::vector<std::string> words(const std::string& line)
        {
            std::istringstream in(line);
            std::vector<std::string> out;
            for (std::string w; in >> w;)
            {
                out.push_back(w);
            }
            return out;
        }

        report_row row_of(const py::handle& entry)
        {
            auto d = py::reinterpret_borrow<py::dict>(entry);
            report_row row;
            row.name = py::str(d["name"]);
            row.file = py::str(d["file"]);
            row.line = d["line"].cast<std::int64_t>();
            row.kind = py::str(d["kind"]);
            row.state = py::str(d["state"]);
            row.graph_runs = d["graph_runs"].cast<std::int64_t>();
            row.fallbacks = d["fallbacks"].cast<std::int64_t>();
            row.guard_misses = d["guard_misses"].cast<std::int64_t>();
            row.assert_failures = d["assert_failures"].cast<std::int64_t>();
            if (!d["reason"].is_none())
            {
                row.reason = py::str(d["reason"]).cast<std::string>();
            }
            if (d.contains("cost_cpython_calls"))
            {
                row.cost_cpython_calls = d["cost_cpython_calls"].cast<std::int64_t>();
            }
            if (d.contains("time_graph_s") && d.contains("time_cpython_s"))
            {
                row.time_graph_s = d["time_graph_s"].cast<double>();
                row.time_cpython_s = d["time_cpython_s"].cast<double>();
            }
            if (d.contains("time_compile_s"))
            {
                row.time_compile_s = d["time_compile_s"].cast<double>();
            }
            if (d.contains("time_saved_s") && !d["time_saved_s"].is_none())
            {
                row.time_saved_s = d["time_saved_s"].cast<double>();
            }
            return row;
        }

        void print_text(const std::string& text)
        {
            py::print(text, py::arg("end") = "");
        }

        void report(const std::vector<std::string>& args, const cell_names& cells)
        {
            py::object entries = engine_module().attr("report")();
            if (args.size() == 2 && args[1] == "--json")
            {
                py::print(py::module_::import("json").attr("dumps")(entries));
                return;
            }
            if (args.size() != 1)
            {
                usage_error(usage);
            }
            std::vector<report_row> rows;
            for (py::handle entry : entries)
            {
                rows.push_back(row_of(entry));
            }
            print_text(format_report_table(rows, cells));
        }

        void print_error(const std::string& text)
        {
            py::print(text, py::arg("file") = py::module_::import("sys").attr("stderr"));
        }

        // The words after the subcommand, as typed ("In [3], line 2" has spaces).
        std::string argument_of(const std::string& line)
        {
            std::size_t start = line.find_first_not_of(" \t");
            std::size_t gap = line.find_first_of(" \t", start);
            if (gap == std::string::npos)
            {
                return "";
            }
            std::size_t from = line.find_first_not_of(" \t", gap);
            std::size_t to = line.find_last_not_of(" \t\r\n");
            return from == std::string::npos ? "" : line.substr(from, to - from + 1);
        }

        // The keyword arguments naming a region for specula.explain() and
        // specula.graph_dot(): a function name, or a cell location.
        py::dict region_query(const std::string& target, const cell_names& cells)
        {
            py::dict query;
            if (auto at = parse_cell_location(target))
            {
                std::optional<std::string> file = cells.file_of(at->first);
                if (!file)
                {
                    usage_error("no cell In [" + std::to_string(at->first) + "] in this session");
                }
                query["file"] = *file;
                query["line"] = at->second;
                return query;
            }
            std::string name = target;
            if (name.size() >= 2 && (name.front() == '"' || name.front() == '\'') &&
                name.back() == name.front())
            {
                name = name.substr(1, name.size() - 2);
            }
            query["name"] = name;
            return query;
        }

        // Calls specula.<what>(**query); nothing (and the engine's message on
        // stderr) when the engine knows no such region or graph.
        std::optional<std::string> ask_engine(const char* what, const std::string& target,
                                              const cell_names& cells)
        {
            if (target.empty())
            {
                usage_error(usage);
            }
            py::dict query = region_query(target, cells);
            try
            {
                return cells.rewrite(engine_module().attr(what)(**query).cast<std::string>());
            }
            catch (py::error_already_set& e)
            {
                if (!e.matches(PyExc_LookupError))
                {
                    throw;
                }
                print_error("specula: " +
                            cells.rewrite(py::str(e.value().attr("args")[py::int_(0)])));
                return std::nullopt;
            }
        }

        // The DOT text as SVG through Graphviz's `dot`; nothing (and a message)
        // when dot is missing or fails.
        std::optional<std::string> render_svg(const std::string& dot)
        {
            py::object which = py::module_::import("shutil").attr("which")("dot");
            if (which.is_none())
            {
                print_error("specula: cannot draw the graph: Graphviz's `dot` is not installed "
                            "(Debian package graphviz)");
                return std::nullopt;
            }
            py::object done =
                py::module_::import("subprocess")
                    .attr("run")(py::make_tuple(which, "-Tsvg"), py::arg("input") = dot,
                                 py::arg("capture_output") = true, py::arg("text") = true,
                                 py::arg("timeout") = 60);
            if (done.attr("returncode").cast<int>() != 0)
            {
                print_error("specula: dot failed: " + done.attr("stderr").cast<std::string>());
                return std::nullopt;
            }
            return done.attr("stdout").cast<std::string>();
        }

        void graph(const std::string& target, const cell_names& cells)
        {
            std::optional<std::string> dot = ask_engine("graph_dot", target, cells);
            if (!dot)
            {
                return;
            }
            // A title, so the picture says which function it is.
            std::size_t open = dot->find("{\n");
            if (open != std::string::npos)
            {
                std::string title = target;
                for (char& c : title)
                {
                    c = c == '"' ? '\'' : c;
                }
                dot->insert(open + 2, "  labelloc=t; label=\"specula graph of " + title + "\";\n");
            }
            if (std::optional<std::string> svg = render_svg(*dot))
            {
                py::module_ display = py::module_::import("IPython.display");
                display.attr("display")(display.attr("SVG")(*svg));
            }
        }

        void reset()
        {
            py::module_ specula = engine_module();
            std::size_t regions = py::len(specula.attr("report")());
            specula.attr("reset")();
            py::print(
                "specula: reset: forgot " + std::to_string(regions) +
                " region(s) with their specialisations and counters; every function is cold again");
        }

        // One line saying what changed, so a notebook shows the mode it ran in.
        void set_numerics(const std::string& mode)
        {
            py::module_ specula = engine_module();
            std::string before = py::str(specula.attr("numerics")());
            auto dropped = specula.attr("set_numerics")(mode).cast<std::size_t>();
            std::string line;
            if (before == mode)
            {
                line = "specula: numerics already " + mode + ", nothing changed";
            }
            else
            {
                line = "specula: numerics " + before + " -> " + mode +
                       (mode == "exact"
                            ? " (float32 bit-identical to NumPy)"
                            : " (float32 may reassociate within the documented tolerance)");
                line += dropped == 0 ? "; no compiled graph depended on it"
                                     : "; " + std::to_string(dropped) +
                                           " compiled specialisation(s) dropped, they recompile on "
                                           "their next call";
            }
            py::print(line);
        }
    } // namespace

    void register_specula_magic(const py::object& shell, const cell_names& cells)
    {
        const cell_names* p_cells = &cells;
        py::cpp_function magic(
            [p_cells](const std::string& line)
            {
                std::vector<std::string> args = words(line);
                if (args.empty())
                {
                    usage_error(usage);
                }
                if (args[0] == "report")
                {
                    report(args, *p_cells);
                }
                else if ((args[0] == "on" || args[0] == "off") && args.size() == 1)
                {
                    engine_module().attr(args[0] == "on" ? "enable" : "disable")();
                }
                else if ((args[0] == "exact" || args[0] == "fast") && args.size() == 1)
                {
                    set_numerics(args[0]);
                }
                else if (args[0] == "reset" && args.size() == 1)
                {
                    reset();
                }
                else if (args[0] == "explain")
                {
                    if (auto text = ask_engine("explain", argument_of(line), *p_cells))
                    {
                        print_text(*text);
                    }
                }
                else if (args[0] == "graph")
                {
                    graph(argument_of(line), *p_cells);
                }
                else
                {
                    usage_error(usage);
                }
            },
            py::arg("line"));
        shell.attr("register_magic_function")(magic, "line", "specula");
    }

    void track_cell_names(const py::object& shell, cell_names& cells)
    {
        py::object compiler = shell.attr("compile");
        py::object previous = compiler.attr("filename_mapper");
        cell_names* p_cells = &cells;
        compiler.attr("filename_mapper") = py::cpp_function(
            [previous, p_cells](const std::string& file, int number)
            {
                p_cells->record(file, number);
                if (!previous.is_none())
                {
                    previous(file, number);
                }
            });
    }
} // namespace specula::kernel
