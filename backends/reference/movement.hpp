#pragma once

// Movement ops: a new view of the same elements (transpose, slice, broadcast)
// plus the copies that materialise them. No arithmetic happens here, so all
// results are bit-identical to NumPy by construction.

#include "backends/reference/strided.hpp"
#include "backends/status.hpp"

namespace specula::backends::reference
{
    // One basic-indexing item, already normalised against the axis size
    // (Python's slice.indices / IR's normalize_slice).
    struct slice_pick
    {
        enum class kind : std::uint8_t
        {
            range,
            index,
            newaxis,
        };
        kind what = kind::range;
        std::int64_t start = 0;
        std::int64_t step = 1;
        std::int64_t count = 0;
    };

    bool transpose_view(const strided_view& v, const int* perm, int n, strided_view& out);
    // Items consume input axes left to right; trailing axes are taken whole.
    bool slice_view(const strided_view& v, const slice_pick* items, int n, strided_view& out);

    // Copies the elements of `in` in C order into `out` in C order: reshape,
    // expand_dims, squeeze, ravel. Sizes and dtypes must match.
    status run_copy_flat(const strided_view& in, const strided_view& out);
    status run_concatenate(const strided_view* ins, int n, int axis, const strided_view& out);
    status run_stack(const strided_view* ins, int n, int axis, const strided_view& out);
} // namespace specula::backends::reference
