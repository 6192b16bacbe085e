// The extension module `specula._engine`: the same engine library as the
// kernel's, for scripts and tests outside Jupyter.
#include "engine/python_module.hpp"

PYBIND11_MODULE(_engine, m)
{
    specula::engine::define_bindings(m);
}
