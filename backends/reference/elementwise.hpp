#pragma once

// Elementwise kernels of the reference backend, named as NumPy's ufuncs.
// Operands broadcast to the output's shape. Each kernel computes in one
// "compute type": the output's dtype, except for predicates and comparisons,
// which compute in the (promoted) input dtype and write bool. Inputs of any
// other dtype are converted on load with NumPy's casting.

#include "backends/reference/strided.hpp"
#include "backends/status.hpp"

#include <optional>
#include <string_view>

namespace specula::backends::reference
{
    // X(name, exact): exact ops must match NumPy bit for bit, the others
    // (libm functions) within 2 ULP.
#define SPECULA_REF_UNARY_OPS(X)                                                                   \
    X(negative, true)                                                                              \
    X(positive, true)                                                                              \
    X(absolute, true)                                                                              \
    X(sign, true)                                                                                  \
    X(square, true)                                                                                \
    X(reciprocal, true)                                                                            \
    X(sqrt, true)                                                                                  \
    X(floor, true)                                                                                 \
    X(ceil, true)                                                                                  \
    X(trunc, true)                                                                                 \
    X(rint, true)                                                                                  \
    X(logical_not, true)                                                                           \
    X(invert, true)                                                                                \
    X(isnan, true)                                                                                 \
    X(isinf, true)                                                                                 \
    X(isfinite, true)                                                                              \
    X(signbit, true)                                                                               \
    X(exp, false)                                                                                  \
    X(exp2, false)                                                                                 \
    X(expm1, false)                                                                                \
    X(log, false)                                                                                  \
    X(log2, false)                                                                                 \
    X(log10, false)                                                                                \
    X(log1p, false)                                                                                \
    X(sin, false)                                                                                  \
    X(cos, false)                                                                                  \
    X(tan, false)                                                                                  \
    X(arcsin, false)                                                                               \
    X(arccos, false)                                                                               \
    X(arctan, false)                                                                               \
    X(sinh, false)                                                                                 \
    X(cosh, false)                                                                                 \
    X(tanh, false)                                                                                 \
    X(arcsinh, false)                                                                              \
    X(arccosh, false)                                                                              \
    X(arctanh, false)                                                                              \
    X(cbrt, false)

#define SPECULA_REF_BINARY_OPS(X)                                                                  \
    X(add, true)                                                                                   \
    X(subtract, true)                                                                              \
    X(multiply, true)                                                                              \
    X(true_divide, true)                                                                           \
    X(floor_divide, true)                                                                          \
    X(remainder, true)                                                                             \
    X(fmod, true)                                                                                  \
    X(maximum, true)                                                                               \
    X(minimum, true)                                                                               \
    X(fmax, true)                                                                                  \
    X(fmin, true)                                                                                  \
    X(copysign, true)                                                                              \
    X(equal, true)                                                                                 \
    X(not_equal, true)                                                                             \
    X(less, true)                                                                                  \
    X(less_equal, true)                                                                            \
    X(greater, true)                                                                               \
    X(greater_equal, true)                                                                         \
    X(logical_and, true)                                                                           \
    X(logical_or, true)                                                                            \
    X(logical_xor, true)                                                                           \
    X(bitwise_and, true)                                                                           \
    X(bitwise_or, true)                                                                            \
    X(bitwise_xor, true)                                                                           \
    X(left_shift, true)                                                                            \
    X(right_shift, true)                                                                           \
    X(power, false)                                                                                \
    X(arctan2, false)                                                                              \
    X(hypot, false)

#define SPECULA_REF_ENUM(name, exact) name,
    enum class unary_op
    {
        SPECULA_REF_UNARY_OPS(SPECULA_REF_ENUM)
    };
    enum class binary_op
    {
        SPECULA_REF_BINARY_OPS(SPECULA_REF_ENUM)
    };
#undef SPECULA_REF_ENUM

    std::optional<unary_op> unary_op_from_name(std::string_view name);
    std::optional<binary_op> binary_op_from_name(std::string_view name);
    std::string_view name_of(unary_op op);
    std::string_view name_of(binary_op op);
    bool is_exact(unary_op op);
    bool is_exact(binary_op op);
    // Ops whose output is bool whatever the input (predicates, comparisons).
    bool is_predicate(unary_op op);
    bool is_predicate(binary_op op);

    status run_unary(unary_op op, const strided_view& in, const strided_view& out);
    status run_binary(binary_op op, const strided_view& a, const strided_view& b,
                      const strided_view& out);
    // np.where(cond, a, b) into out (all broadcast to out's shape).
    status run_where(const strided_view& cond, const strided_view& a, const strided_view& b,
                     const strided_view& out);
    // out[...] = in (broadcast) converted to out's dtype: astype, copy, fill.
    status run_cast(const strided_view& in, const strided_view& out);
} // namespace specula::backends::reference
