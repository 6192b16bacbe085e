#pragma once

// matmul / dot / outer by plain loops: acc = 0, then acc += a*b for k
// ascending, in the output dtype. Integer and bool results are exact (modular
// arithmetic does not depend on order); float results differ from NumPy's BLAS
// calls only by summation order.

#include "backends/reference/strided.hpp"
#include "backends/status.hpp"

namespace specula::backends::reference
{
    // np.matmul: 1-D operands are promoted and the added dim removed; batch
    // dims broadcast.
    status run_matmul(const strided_view& a, const strided_view& b, const strided_view& out);
    // np.dot: scalars multiply; otherwise contract a's last axis with b's
    // last (b 1-D) or second-to-last axis.
    status run_dot(const strided_view& a, const strided_view& b, const strided_view& out);
    // np.outer: flattened a times flattened b.
    status run_outer(const strided_view& a, const strided_view& b, const strided_view& out);
} // namespace specula::backends::reference
