// The one place that picks the backend graphs run on. The reference backend
// until the CPU backend lands; swapping it touches only this file.
#pragma once

#include "backends/reference/reference_backend.hpp"

namespace specula::engine
{
    inline const backends::backend& engine_backend()
    {
        static backends::reference::reference_backend reference;
        return reference;
    }
} // namespace specula::engine

#include "ir/op.hpp"

namespace specula::engine
{
    // Whether the chosen backend is known to be bit-identical to NumPy for
    // this op (the numerics policy). The reference backend computes
    // transcendental functions with libm (NumPy 1.24 uses its own SIMD
    // loops) and products with plain loops (NumPy uses BLAS), so the
    // converter refuses those until the CPU backend calls NumPy's own loops.
    inline bool backend_is_exact(ir::op code, int rank_a = 1, int rank_b = 1)
    {
        switch (code)
        {
        case ir::op::EXP:
        case ir::op::EXPM1:
        case ir::op::LOG:
        case ir::op::LOG1P:
        case ir::op::TANH:
        case ir::op::SIN:
        case ir::op::COS:
        case ir::op::POW:
            return false;
        case ir::op::MATMUL:
        case ir::op::DOT:
            return rank_a <= 1 && rank_b <= 1;
        default:
            return true;
        }
    }
} // namespace specula::engine
