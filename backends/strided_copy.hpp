#pragma once

// Copies a buffer of any layout (strided, broadcast, negative steps) into
// C-contiguous memory: how the executor hands a view to a kernel that reads
// C order only, and how an output that is a view leaves the executable.

#include "backends/buffer.hpp"

namespace specula::backends
{
    // Writes src's elements in C order to `dst` (src.size() * itemsize bytes,
    // not overlapping src).
    void copy_to_contiguous(const buffer& src, std::byte* dst);
} // namespace specula::backends
