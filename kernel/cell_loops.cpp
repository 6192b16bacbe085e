#include "kernel/cell_loops.hpp"

namespace specula::kernel
{
    namespace py = pybind11;

    void install_cell_loops(py::object shell)
    {
        try
        {
            py::module_ engine = py::module_::import("_specula_engine");
            if (!engine.attr("enabled")().cast<bool>())
            {
                return;
            }
            py::module_::import("specula.cell_loops").attr("install")(shell);
        }
        catch (py::error_already_set&)
        {
            PyErr_Clear();
        }
    }
} // namespace specula::kernel
