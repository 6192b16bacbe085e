#include "engine/engine.hpp"

#include <utility>

#include "engine/engine_core.hpp"
#include "engine/python_module.hpp"

namespace specula::engine
{
    using namespace pybind11::literals;

    engine::engine(py::object shell) : m_shell(std::move(shell))
    {
        try
        {
            register_embedded_module();
            if (!engine_core::instance().enable(/*force=*/false))
            {
                PyErr_Clear(); // no NumPy: the kernel runs without speculation
            }
        }
        catch (py::error_already_set&)
        {
            PyErr_Clear();
        }
    }

    py::object engine::run_cell(const cell_request& request)
    {
        engine_core::instance().cell_starts();
        return m_shell.attr("run_cell")(request.code, "store_history"_a = request.store_history,
                                        "silent"_a = request.silent);
    }

    std::string engine::report_table()
    {
        return specula::engine::report_table();
    }

    py::object engine::report()
    {
        return engine_core::instance().report();
    }
} // namespace specula::engine
