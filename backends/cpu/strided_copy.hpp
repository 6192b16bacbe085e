#pragma once

// Copies between strided views with NumPy's unsafe-casting conversion, the
// data movement under the CPU backend's indexing, concatenation and creation
// kernels. Pure data movement plus C conversions (cast_loop), so results are
// NumPy's bit for bit whatever the layout, blocking or lane split.

#include "backends/buffer.hpp"
#include "backends/cpu/thread_pool.hpp"
#include "backends/reference/strided.hpp"
#include "backends/status.hpp"
#include "ir/graph.hpp"

#include <vector>

namespace specula::backends::cpu
{
    using reference::strided_view;

    ir::dtype dtype_of(reference::scalar s);

    // dst = src converted to dst's dtype; the shapes must be equal (a
    // broadcast source has stride-0 dims, reference::broadcast_view). With a
    // pool, copies of at least parallel_min_elements split across its lanes.
    status copy_cast(const strided_view& src, const strided_view& dst, thread_pool* pool = nullptr);

    // True when the bytes a and b may touch intersect (conservative: the
    // address ranges spanned, whatever the strides).
    bool overlaps(const strided_view& a, const strided_view& b);

    // Whether every operand of `n` has a rank strided_view can describe (the
    // indexing and copy kernels decline the node otherwise).
    bool ranks_fit(const ir::graph& g, const ir::node& n);

    // A C-contiguous copy of `v` in dtype `to`, in `scratch` (grown, never
    // shrunk: a kernel's scratch is reused run after run).
    strided_view contiguous_copy(const strided_view& v, reference::scalar to,
                                 std::vector<std::byte>& scratch);
} // namespace specula::backends::cpu
