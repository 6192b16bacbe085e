#pragma once

// Shared by the CPU backend's reduction kernels (reduction_kernels.cpp,
// variance_kernels.cpp).

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/reduce_plan.hpp"

#include <vector>

namespace specula::backends::cpu
{
    // reduce_attr's axes as one flag per input dim.
    std::vector<bool> reduced_dims(const ir::reduce_attr& attr, int rank);

    // The input as a C-contiguous array of `elem`: its own bytes when it
    // already is one, else converted (NumPy's buffered cast) into `scratch`.
    const std::byte* reduction_input(const buffer& in, ir::dtype elem,
                                     std::vector<std::byte>& scratch, thread_pool* pool);

    // `code` (sum, mean, prod, any, all; max/min and argmax/argmin go through
    // run_extremum and run_arg_reduction) over the
    // C-contiguous `in` of `elem` (bool for any/all; the result dtype for
    // sum/mean/prod), into the C-contiguous `out`.
    status run_reduction(ir::op code, const reduce_plan& p, const std::byte* in, ir::dtype elem,
                         std::byte* out, thread_pool* pool);

    // max/min (`loop`: the maximum or minimum loop of `elem`, NumPy's own for
    // NumPy's bits) over the C-contiguous `in`, into the C-contiguous `out`
    // (extremum_reduce.cpp). The reduction must not be empty.
    void run_extremum(const ufunc_loop& loop, const reduce_plan& p, const std::byte* in,
                      ir::dtype elem, std::byte* out, thread_pool* pool);

    // argmax/argmin over the C-contiguous `in` into int64 `out`
    // (arg_reduce.cpp). The reduction must not be empty.
    status run_arg_reduction(ir::op code, const reduce_plan& p, const std::byte* in, ir::dtype elem,
                             std::byte* out, thread_pool* pool);

    result<std::unique_ptr<kernel>> make_variance_kernel(const ir::graph& g, const ir::node& n,
                                                         const kernel_context& ctx);
} // namespace specula::backends::cpu
