#ifndef SPECULA_ENGINE_ENGINE_HPP
#define SPECULA_ENGINE_ENGINE_HPP

#include <string>

#include <pybind11/pybind11.h>

namespace specula::engine
{
    namespace py = pybind11;

    // One execute request as the kernel hands it over.
    struct cell_request
    {
        std::string code;
        int execution_count = 0;
        bool silent = false;
        bool store_history = true;
    };

    // The single entry point of the engine: the kernel runs every cell
    // through run_cell(). This revision runs the cell in CPython unchanged
    // (through the IPython shell) and records nothing; the speculative
    // engine attaches here.
    class engine
    {
    public:
        // `shell` is borrowed for the engine's lifetime: the kernel's
        // IPython InteractiveShell.
        explicit engine(py::object shell);
        ~engine() = default;

        engine(const engine&) = delete;
        engine& operator=(const engine&) = delete;
        engine(engine&&) = delete;
        engine& operator=(engine&&) = delete;

        // Requires the GIL. Returns IPython's ExecutionResult (new reference
        // held by the py::object). Python exceptions of the cell never escape:
        // IPython records them on the result.
        py::object run_cell(const cell_request& request);

    private:
        py::object m_shell;
    };
} // namespace specula::engine

#endif
