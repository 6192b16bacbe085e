#include "kernel/specula_magic.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace specula::kernel
{
    namespace
    {
        constexpr const char* usage = "usage: %specula report [--json] | on | off | exact | fast";

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
                       (mode == "exact" ? " (float32 bit-identical to NumPy)"
                                        : " (float32 may reassociate within the documented tolerance)");
                line += dropped == 0 ? "; no compiled graph depended on it"
                                     : "; " + std::to_string(dropped) +
                                           " compiled specialisation(s) dropped, they recompile on their next call";
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
