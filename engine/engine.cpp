#include "engine/engine.hpp"

#include <utility>

namespace specula::engine
{
    using namespace pybind11::literals;

    engine::engine(py::object shell) : m_shell(std::move(shell)) {}

    py::object engine::run_cell(const cell_request& request)
    {
        return m_shell.attr("run_cell")(request.code, "store_history"_a = request.store_history,
                                        "silent"_a = request.silent);
    }
} // namespace specula::engine
