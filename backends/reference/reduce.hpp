#pragma once

// Axis reductions with NumPy's result order and dtype contract: the caller
// picks the output dtype (np.sum of int8 is int64, np.mean of ints is
// float64, argmax is int64) and the kernel accumulates in it.

#include "backends/reference/strided.hpp"
#include "backends/status.hpp"

#include <optional>
#include <string_view>

namespace specula::backends::reference
{
#define SPECULA_REF_REDUCE_OPS(X)                                                                  \
    X(sum)                                                                                         \
    X(prod)                                                                                        \
    X(max)                                                                                         \
    X(min)                                                                                         \
    X(mean)                                                                                        \
    X(var)                                                                                         \
    X(std)                                                                                         \
    X(argmax)                                                                                      \
    X(argmin)                                                                                      \
    X(any)                                                                                         \
    X(all)

#define SPECULA_REF_ENUM(name) name,
    enum class reduce_op
    {
        SPECULA_REF_REDUCE_OPS(SPECULA_REF_ENUM)
    };
#undef SPECULA_REF_ENUM

    std::optional<reduce_op> reduce_op_from_name(std::string_view name);
    std::string_view name_of(reduce_op op);

    struct reduce_spec
    {
        reduce_op op = reduce_op::sum;
        std::uint32_t axes = 0; // bit d set: input dim d is reduced
        std::int64_t ddof = 0;  // var/std only
    };

    // `out` has the input's rank with the reduced dims of size 1 (keepdims) or
    // those dims removed. argmax/argmin reduce one axis, or all of them in
    // C order (NumPy's axis=None).
    status run_reduce(const reduce_spec& spec, const strided_view& in, const strided_view& out);
} // namespace specula::backends::reference
