#ifndef SPECULA_KERNEL_SPECULA_MAGIC_HPP
#define SPECULA_KERNEL_SPECULA_MAGIC_HPP

#include <pybind11/pybind11.h>

#include "kernel/report_table.hpp"

namespace specula::kernel
{
    namespace py = pybind11;

    // Registers the `%specula` line magic on the IPython shell:
    //   %specula report          the engine's regions as a table
    //   %specula report --json   exactly json.dumps(specula.report())
    //   %specula on | off        specula.enable() / specula.disable()
    //   %specula exact | fast    specula.set_numerics(), one line saying what changed
    //   %specula reset           specula.reset(): every function is cold again
    //   %specula explain <f | In [n], line k>   specula.explain(), cells named
    //   %specula graph <f | In [n], line k>     specula.graph_dot() drawn as SVG by
    //                                           Graphviz's dot, shown inline
    // It talks to the engine only through the `specula` module, the same
    // contract scripts use. `cells` is borrowed and must outlive the shell.
    // Requires the GIL.
    void register_specula_magic(const py::object& shell, const cell_names& cells);

    // Records, for every cell IPython compiles, its temporary file name and
    // execution count into `cells` (borrowed), keeping xeus-python's own
    // mapping working. Requires the GIL.
    void track_cell_names(const py::object& shell, cell_names& cells);
} // namespace specula::kernel

#endif
