#pragma once

// Graph inputs as the engine passes them to the CPU benchmarks.

#include "backends/buffer.hpp"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <sys/mman.h>

namespace specula::bench
{
    // A float64 input in a NumPy array's memory, zero-filled: NumPy advises
    // data of 4 MiB and more into huge pages (without that, the 16M-element
    // runs measured TLB misses, not the kernels).
    inline backends::buffer numpy_like_input(const std::vector<std::int64_t>& dims)
    {
        std::size_t bytes = sizeof(double);
        for (auto d : dims)
        {
            bytes *= static_cast<std::size_t>(d);
        }
        const std::size_t huge = std::size_t(1) << 21;
        const std::size_t rounded = (bytes + huge - 1) / huge * huge;
        void* raw = std::aligned_alloc(huge, rounded);
        if (bytes >= (std::size_t(1) << 22))
        {
            madvise(raw, rounded, MADV_HUGEPAGE);
        }
        std::memset(raw, 0, rounded);
        return backends::buffer::borrow(raw, ir::dtype::float64, dims, {}, {},
                                        std::shared_ptr<void>(raw, [](void* q) { std::free(q); }));
    }
} // namespace specula::bench
