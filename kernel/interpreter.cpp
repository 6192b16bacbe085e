#include "kernel/interpreter.hpp"

#include <csignal>
#include <optional>
#include <utility>

#include <pybind11_json/pybind11_json.hpp>

#include "kernel/cell_loops.hpp"
#include "kernel/error_reply.hpp"
#include "kernel/input_redirection.hpp"
#include "kernel/kernel_info.hpp"
#include "kernel/python_streams.hpp"
#include "kernel/sigint_gate.hpp"
#include "kernel/specula_magic.hpp"

namespace specula::kernel
{
    namespace
    {
        // A SIGINT that reached Python's handler after the cell's last
        // bytecode has tripped CPython's flag; clear it so that it does not
        // surface as a KeyboardInterrupt in the next cell. Requires the GIL.
        // Called from the SIGINT handler on the shell thread during a cell.
        void interrupt_python()
        {
            PyErr_SetInterruptEx(SIGINT);
        }

        void discard_tripped_interrupt()
        {
            if (PyErr_CheckSignals() != 0)
            {
                PyErr_Clear();
            }
        }

        cell_error error_from_exception(py::error_already_set& e)
        {
            cell_error error;
            error.ename = py::str(e.type().attr("__name__"));
            error.evalue = py::str(e.value());
            error.traceback = {error.ename + ": " + error.evalue};
            return error;
        }

        // The reply of a failed cell names the exception IPython recorded on
        // the ExecutionResult (as ipykernel does), with the traceback shown.
        cell_error error_from_result(const py::object& result,
                                     const std::optional<cell_error>& shown)
        {
            py::object err = result.attr("error_before_exec");
            if (err.is_none())
            {
                err = result.attr("error_in_exec");
            }
            cell_error error;
            error.ename = py::str(py::type::of(err).attr("__name__"));
            error.evalue = py::str(err);
            if (shown)
            {
                error.traceback = shown->traceback;
            }
            return error;
        }

        cell_error error_from_shell(const py::object& last_error)
        {
            auto fields = last_error.cast<py::list>();
            cell_error error;
            error.ename = py::str(fields[0]);
            error.evalue = py::str(fields[1]);
            for (py::handle line : fields[2].cast<py::list>())
            {
                error.traceback.push_back(py::str(line));
            }
            return error;
        }
    } // namespace

    interpreter::interpreter(history_manager& history)
        : xpyt::interpreter(/*redirect_output_enabled=*/false, /*redirect_display_enabled=*/true),
          p_history(&history), m_output([this](const std::string& name, const std::string& text)
                                        { publish_stream(name, text); })
    {
    }

    interpreter::~interpreter()
    {
        m_output.stop_timer();
    }

    void interpreter::configure_impl()
    {
        xpyt::interpreter::configure_impl();
        py::gil_scoped_acquire acquire;
        install_streams();
        install_error_recorder();
        install_display_flush();
        track_cell_names(m_ipython_shell, m_cell_names);
        register_specula_magic(m_ipython_shell, m_cell_names);
        install_sigint_handler(interrupt_python);
        m_python_version = py::str(py::module_::import("platform").attr("python_version")());
        m_engine = std::make_unique<engine::engine>(m_ipython_shell);
        install_cell_loops(m_ipython_shell);
        m_output.start_timer();
    }

    void interpreter::install_streams()
    {
        py::module_ sys = py::module_::import("sys");
        sys.attr("stdout") = make_python_stream(m_output, "stdout");
        sys.attr("stderr") = make_python_stream(m_output, "stderr");
    }

    void interpreter::install_error_recorder()
    {
        // xeus-python records str(etype), "<class 'ZeroDivisionError'>", as
        // the error name; clients expect the class name.
        py::object shell = m_ipython_shell;
        m_ipython_shell.attr("_showtraceback") = py::cpp_function(
            [shell](const py::object& etype, const py::object& evalue, const py::object& stb)
            {
                py::object name = py::getattr(etype, "__name__", py::str(etype));
                shell.attr("last_error") = py::make_tuple(name, py::str(evalue), stb);
            });
    }

    void interpreter::install_display_flush()
    {
        // Text printed before a display() must be shown before it.
        py::object display_pub = m_ipython_shell.attr("display_pub");
        output_coalescer* p_output = &m_output;
        for (const char* name : {"publish_display_data", "clear_output"})
        {
            py::object original = display_pub.attr(name);
            display_pub.attr(name) = py::cpp_function(
                [original, p_output](const py::args& args, const py::kwargs& kwargs)
                {
                    {
                        py::gil_scoped_release release;
                        p_output->flush();
                    }
                    return original(*args, **kwargs);
                });
        }
    }

    nl::json interpreter::execute_request_impl(int execution_count, const std::string& code,
                                               bool silent, bool store_history,
                                               nl::json user_expressions, bool allow_stdin)
    {
        py::gil_scoped_acquire acquire;
        if (store_history && !silent)
        {
            p_history->begin_cell(execution_count);
        }
        m_output.begin_cell();
        nl::json reply;
        py::object result =
            run_cell(execution_count, code, silent, store_history, allow_stdin, reply);
        if (reply.is_null())
        {
            reply = finish_cell(result, silent, user_expressions);
        }
        {
            py::gil_scoped_release release;
            m_output.end_cell();
        }
        return reply;
    }

    py::object interpreter::run_cell(int execution_count, const std::string& code, bool silent,
                                     bool store_history, bool allow_stdin, nl::json& failure)
    {
        m_ipython_shell.attr("last_error") = py::none();
        try
        {
            input_redirection inputs(allow_stdin, m_output);
            py::object result;
            {
                sigint_window interruptible;
                result = m_engine->run_cell({code, execution_count, silent, store_history});
            }
            discard_tripped_interrupt();
            return result;
        }
        catch (py::error_already_set& e)
        {
            // Only the shell's own machinery gets here (a cell's exceptions
            // are caught by IPython): report it as the cell's error.
            discard_tripped_interrupt();
            cell_error error = error_from_exception(e);
            if (!silent)
            {
                m_output.flush();
                publish_execution_error(error.ename, error.evalue, error.traceback);
            }
            failure = error_reply_content(error);
            return py::none();
        }
    }

    nl::json interpreter::finish_cell(const py::object& result, bool silent,
                                      const nl::json& user_expressions)
    {
        nl::json payload = m_ipython_shell.attr("payload_manager").attr("read_payload")();
        m_ipython_shell.attr("payload_manager").attr("clear_payload")();

        // An error message is published when IPython showed a traceback;
        // some failures (UsageError) only print to stderr, as in ipykernel.
        py::object last_error = m_ipython_shell.attr("last_error");
        std::optional<cell_error> shown;
        if (!last_error.is_none())
        {
            shown = error_from_shell(last_error);
            if (!silent)
            {
                m_output.flush();
                publish_execution_error(plain_exception_name(shown->ename), shown->evalue,
                                        shown->traceback);
            }
        }
        if (result.attr("success").cast<bool>())
        {
            nl::json reply;
            reply["status"] = "ok";
            reply["payload"] = std::move(payload);
            reply["user_expressions"] = m_ipython_shell.attr("user_expressions")(user_expressions);
            return reply;
        }
        nl::json content = error_reply_content(error_from_result(result, shown));
        content["payload"] = std::move(payload);
        return content;
    }

    nl::json interpreter::kernel_info_request_impl()
    {
        return kernel_info_content(m_python_version);
    }

    void interpreter::shutdown_request_impl()
    {
        m_output.flush();
        m_output.stop_timer();
    }
} // namespace specula::kernel
