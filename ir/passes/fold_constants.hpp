// Constant folding, bit-exact against NumPy. A node is folded only when every input is a
// CONSTANT, the result has at most 4096 elements, and NumPy would give the same bits
// without a warning:
// - integer/bool elementwise ops: add sub mul floordiv mod maximum minimum neg abs sign
//   square, comparisons, logical and bitwise ops, shifts; skipped when the exact result
//   does not fit the dtype (NumPy scalars warn on overflow), on division by zero, and on
//   shifts outside 0..bits-1;
// - float ops that IEEE 754 rounds correctly: add sub mul div neg abs sqrt square
//   reciprocal floor ceil rint maximum minimum and comparisons, computed in the result
//   precision; skipped unless every input and the result are finite (NumPy warns on
//   overflow, division by zero and invalid operations) and for maximum/minimum of
//   signed zeros (SIMD loops differ there);
// - cast (int->int/bool/float, float->float finite, float->int when in range), where,
//   reshape, expand_dims, squeeze, and shape_dim of a static dim.
// Not folded: transcendental functions (libm differs from NumPy's), pow, float
// floordiv/mod, reductions (pairwise summation order), matmul.
#pragma once

#include "ir/graph.hpp"

namespace specula::ir
{
    // Returns the number of nodes replaced by constants.
    int fold_constants(graph& g);
} // namespace specula::ir
