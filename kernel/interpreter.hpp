#ifndef SPECULA_KERNEL_INTERPRETER_HPP
#define SPECULA_KERNEL_INTERPRETER_HPP

#include <memory>
#include <string>

#include <xeus-python/xinterpreter.hpp>

#include "engine/engine.hpp"
#include "kernel/history_manager.hpp"
#include "kernel/output_coalescer.hpp"
#include "kernel/report_table.hpp"

namespace specula::kernel
{
    namespace py = pybind11;
    namespace nl = nlohmann;

    // xeus-python's IPython-based interpreter with Specula's changes: every
    // cell runs through the engine's entry point, output is coalesced, error
    // names are plain class names, SIGINT is live only while a cell runs, and
    // kernel_info speaks for Specula. Completion, inspection and is_complete
    // are xeus-python's.
    class interpreter final : public xpyt::interpreter
    {
    public:
        // `history` is borrowed; the kernel owns it and outlives us.
        explicit interpreter(history_manager& history);
        ~interpreter() override;

        interpreter(const interpreter&) = delete;
        interpreter& operator=(const interpreter&) = delete;
        interpreter(interpreter&&) = delete;
        interpreter& operator=(interpreter&&) = delete;

    private:
        void configure_impl() override;
        nl::json execute_request_impl(int execution_count, const std::string& code, bool silent,
                                      bool store_history, nl::json user_expressions,
                                      bool allow_stdin) override;
        nl::json kernel_info_request_impl() override;
        void shutdown_request_impl() override;

        void install_streams();
        void install_error_recorder();
        void install_display_flush();
        // IPython's ExecutionResult; `failure` is set (and None returned) when
        // the shell itself raised.
        py::object run_cell(int execution_count, const std::string& code, bool silent,
                            bool store_history, bool allow_stdin, nl::json& failure);
        nl::json finish_cell(const py::object& result, bool silent,
                             const nl::json& user_expressions);

        history_manager* p_history; // borrowed
        output_coalescer m_output;
        std::unique_ptr<engine::engine> m_engine;
        std::string m_python_version;
        cell_names m_cell_names;
    };
} // namespace specula::kernel

#endif
