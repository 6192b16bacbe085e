// The engine's Python bindings: `specula._engine` in the extension and the
// builtin `_specula_engine` inside the kernel, both made by define_bindings().
#pragma once

#include <pybind11/pybind11.h>

namespace specula::engine
{
    namespace py = pybind11;

    void define_bindings(py::module_& m);
    // Creates `_specula_engine` and puts it in sys.modules, so the kernel's
    // `import specula` reaches the kernel's own engine. Requires the GIL.
    void register_embedded_module();
    // The report as a readable table (for `%specula report`).
    std::string report_table();
} // namespace specula::engine
