#pragma once

// Splits a reduction into the dims that survive (outer, walked once per
// output element) and the reduced dims (inner, walked per output element in
// C order). Size-1 dims are dropped because they never change NumPy's order.

#include "backends/reference/strided.hpp"

#include <cstdint>

namespace specula::backends::reference
{
    struct reduce_split
    {
        strided_view outer_in;  // surviving dims, input strides
        strided_view outer_out; // surviving dims, output strides
        strided_view inner;     // reduced dims (data set per output element)
        // inner dims [block_start, rank) are the trailing reduced block that
        // NumPy's iterator hands to one inner-loop call (summed pairwise).
        int block_start = 0;
        std::int64_t count = 1; // elements folded into each output
    };

    // False when `out` is neither the keepdims nor the squeezed result shape.
    bool split_reduction(const strided_view& in, std::uint32_t axes, const strided_view& out,
                         reduce_split& split);
} // namespace specula::backends::reference
