#ifndef SPECULA_KERNEL_CELL_LOOPS_HPP
#define SPECULA_KERNEL_CELL_LOOPS_HPP

#include <pybind11/pybind11.h>

namespace specula::kernel
{
    // Makes the loops of every later cell engine regions: registers
    // specula.cell_loops' AST transformer with the shell. Only when the
    // engine is on (SPECULA_ENGINE=off leaves cells exactly as written); a
    // missing package leaves the kernel without loop regions, never broken.
    // Requires the GIL.
    void install_cell_loops(pybind11::object shell);
} // namespace specula::kernel

#endif
