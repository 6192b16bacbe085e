#pragma once

// Integer-array and boolean-mask indexing: np.take(x, idx, axis), x[mask],
// and their functional updates (a copy of x with the selected elements set).
// Out-of-range indices are a runtime_error status, as NumPy raises IndexError.

#include "backends/reference/strided.hpp"
#include "backends/status.hpp"

namespace specula::backends::reference
{
    status run_take(const strided_view& x, const strided_view& idx, int axis,
                    const strided_view& out);
    // out = x; out[(:,)*axis, idx] = v, v broadcast to take's result shape.
    status run_take_update(const strided_view& x, const strided_view& idx, const strided_view& v,
                           int axis, const strided_view& out);

    // Number of true elements: the leading extent of x[mask].
    std::int64_t count_true(const strided_view& mask);
    // x[mask] for a mask covering x's leading mask.rank dims.
    status run_mask_select(const strided_view& x, const strided_view& mask,
                           const strided_view& out);
    // out = x; out[mask] = v, v broadcast to x[mask]'s shape.
    status run_mask_update(const strided_view& x, const strided_view& mask, const strided_view& v,
                           const strided_view& out);
} // namespace specula::backends::reference
