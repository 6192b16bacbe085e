#pragma once

// Fills a cpu::loop_table from NumPy's ufunc objects (PyUFuncObject::types,
// functions, data). The only code of the CPU backend that includes Python or
// NumPy headers. Call with the interpreter initialised and the GIL held; the
// loops stay valid while numpy stays imported (it is never unloaded).

#include "backends/cpu/loop_table.hpp"
#include "backends/status.hpp"

namespace specula::backends::cpu
{
    // Every (op, dtype) loop NumPy has for the ops of `numpy_ufunc_name`.
    // Returns how many loops were added, or why none could be.
    result<int> fill_numpy_loops(loop_table& table);

    // The ufunc that implements an IR op ("exp", "true_divide"...), or null.
    const char* numpy_ufunc_name(ir::op code);
} // namespace specula::backends::cpu
