#include "kernel/input_redirection.hpp"

#include <string>

#include <xeus/xinput.hpp>

#include "kernel/sigint_gate.hpp"

namespace specula::kernel
{
    namespace
    {
        std::string ask_frontend(output_coalescer& output, const std::string& prompt, bool password)
        {
            // Text printed before the prompt must reach the frontend first.
            output.flush();
            py::gil_scoped_release release;
            sigint_shield shield;
            return xeus::blocking_input_request(prompt, password);
        }

        py::cpp_function make_reader(bool allow_stdin, output_coalescer& output, bool password)
        {
            output_coalescer* p_output = &output;
            if (!allow_stdin)
            {
                return py::cpp_function(
                    [](const py::object&) -> std::string
                    {
                        py::object error = py::module_::import("IPython.core.error")
                                               .attr("StdinNotImplementedError");
                        PyErr_SetString(error.ptr(),
                                        "This frontend does not support input requests");
                        throw py::error_already_set();
                    },
                    py::arg("prompt") = "");
            }
            return py::cpp_function([p_output, password](const py::object& prompt)
                                    { return ask_frontend(*p_output, py::str(prompt), password); },
                                    py::arg("prompt") = "");
        }
    } // namespace

    input_redirection::input_redirection(bool allow_stdin, output_coalescer& output)
    {
        py::module_ builtins = py::module_::import("builtins");
        py::module_ getpass = py::module_::import("getpass");
        m_saved_input = builtins.attr("input");
        m_saved_getpass = getpass.attr("getpass");
        builtins.attr("input") = make_reader(allow_stdin, output, false);
        getpass.attr("getpass") = make_reader(allow_stdin, output, true);
    }

    input_redirection::~input_redirection() // NOLINT(bugprone-exception-escape): all caught
    {
        try
        {
            py::module_::import("builtins").attr("input") = m_saved_input;
            py::module_::import("getpass").attr("getpass") = m_saved_getpass;
        }
        catch (py::error_already_set& e)
        {
            // Both modules are imported already; failing here means the
            // interpreter is going down. Nothing to restore then.
            e.discard_as_unraisable("restoring input()");
        }
        catch (...)
        {
            // A destructor must not throw; there is nothing left to undo.
        }
    }
} // namespace specula::kernel
