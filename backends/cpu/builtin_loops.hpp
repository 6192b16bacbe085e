#pragma once

// Our own inner loops, with NumPy's calling convention (loop_table.hpp), for
// the ops whose exact result does not depend on the implementation: IEEE
// add/sub/mul/div, wrapping integer arithmetic, comparisons, logic, bit ops,
// min/max with NumPy's NaN and tie rules, where and casts. Proven bit-equal
// to NumPy by tests/unit/cpu. Transcendental functions are not here: they
// come from NumPy's own loops (numpy_loops/) or fall back.

#include "backends/cpu/loop_table.hpp"

namespace specula::backends::cpu
{
    // Loop of `code` computing in `loop_dtype` (comparisons write bool), or
    // an empty loop when we have none.
    ufunc_loop builtin_loop(ir::op code, ir::dtype loop_dtype);

    // dst = (to) src with NumPy's unsafe-casting (C conversion) semantics.
    ufunc_loop cast_loop(ir::dtype from, ir::dtype to);

    // where(cond: bool, a: t, b: t) -> t.
    ufunc_loop where_loop(ir::dtype t);
} // namespace specula::backends::cpu
