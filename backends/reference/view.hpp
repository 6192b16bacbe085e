#pragma once

// The bridge from the backend interface (ir::dtype, buffer) to the reference
// kernels' own strided views.

#include "backends/buffer.hpp"
#include "backends/kernel.hpp"
#include "backends/reference/strided.hpp"

#include <functional>
#include <memory>

namespace specula::backends::reference
{
    scalar to_scalar(ir::dtype t);
    // A view of b; b.rank() must be at most max_rank (checked at compile).
    strided_view view_of(const buffer& b);

    using kernel_fn = std::function<status(const kernel_io&)>;
    // A kernel running `fn`; `allocates` as kernel::allocates_outputs().
    std::unique_ptr<kernel> make_kernel(kernel_fn fn, bool allocates = false);
} // namespace specula::backends::reference
