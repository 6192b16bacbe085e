#pragma once

// A straight-line program of elementwise inner loops over registers: the
// compiled form of one elementwise node or of a whole fusion group. Registers
// are graph inputs (read in place, broadcast or gathered), temporaries (one
// cache-sized block per lane, never a full array) and outputs (the escaping
// values, written straight into their buffers).

#include "backends/cpu/loop_table.hpp"
#include "backends/status.hpp"
#include "ir/graph.hpp"

#include <array>
#include <vector>

namespace specula::backends::cpu
{
    enum class reg_kind
    {
        input,
        temp,
        output,
    };

    struct ew_reg
    {
        ir::dtype elem = ir::dtype::float64;
        reg_kind kind = reg_kind::temp;
        int index = 0; // into m_inputs / temp slots / m_outputs
    };

    struct ew_instr
    {
        ufunc_loop loop;
        int num_args = 0;             // inputs then the destination
        std::array<int, 4> args = {}; // register ids
    };

    // Which loops the program may use: NumPy's (when a table was filled) and
    // our own. Ops with neither answer unimplemented.
    struct loop_source
    {
        const loop_table* p_numpy = nullptr;
        bool use_builtin = true;
    };

    // The runner keeps one pointer and one step per register on its stack;
    // a larger program is refused (its nodes then run one by one).
    inline constexpr std::size_t max_registers = 64;

    struct ew_program
    {
        std::vector<ir::value_id> m_inputs;  // external values, in register order
        std::vector<ir::value_id> m_outputs; // escaping values
        std::vector<ew_reg> m_regs;
        std::vector<ew_instr> m_code;
        int m_num_temps = 0;
    };

    // Compiles `nodes` (program order, all elementwise, one output each) with
    // `outputs` the values read after the group. Unimplemented when some op x
    // dtype has no loop.
    result<ew_program> build_program(const ir::graph& g, const std::vector<const ir::node*>& nodes,
                                     const std::vector<ir::value_id>& outputs,
                                     const loop_source& loops);

    // The loop for (code, loop dtype): NumPy's when allowed, else our own.
    ufunc_loop select_loop(ir::op code, ir::dtype loop_dtype, const loop_source& loops);
} // namespace specula::backends::cpu
