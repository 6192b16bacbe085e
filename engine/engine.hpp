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
    // through run_cell(). Constructing the engine registers the builtin
    // module `_specula_engine` (so `import specula` in a cell reaches this
    // engine) and installs the frame hook unless SPECULA_ENGINE=off; cells
    // then run in CPython through IPython while hot functions they call are
    // profiled, compiled and run as graphs.
    class engine
    {
    public:
        // `shell` is borrowed for the engine's lifetime: the kernel's
        // IPython InteractiveShell. Requires the GIL. Never throws for an
        // engine problem: the kernel then runs without speculation.
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

        // The engine report as a readable table (`%specula report`); the
        // `--json` form is json.dumps(report()).
        static std::string report_table();
        // New reference held by py::object: specula.report()'s list.
        static py::object report();

    private:
        py::object m_shell;
    };
} // namespace specula::engine

#endif
