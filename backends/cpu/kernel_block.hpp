#pragma once

// Memory a kernel that allocates its own output (data-dependent shapes such as
// x[mask], a reshape that must copy) keeps across runs. The executor drops
// every value at the end of a run, so a block nobody else holds by the next
// run is free to be overwritten: steady runs allocate nothing. A block the
// caller still holds (an output it kept) is left alone and a new one taken,
// so outputs stay the caller's.

#include "backends/buffer.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace specula::backends::cpu
{
    class kernel_block
    {
    public:
        // A C-contiguous buffer of `elem` and `shape` for `out`, whose previous
        // value is dropped first (it may be the last run's view of the block).
        result<buffer> take(buffer& out, ir::dtype elem,
                            const std::vector<std::int64_t>& shape) const
        {
            out.reset();
            std::int64_t bytes = static_cast<std::int64_t>(ir::itemsize(elem));
            for (std::int64_t d : shape)
            {
                bytes *= d;
            }
            if (m_block.is_null() || m_block.use_count() > 1 || m_block.size() < bytes)
            {
                auto fresh = buffer::allocate(ir::dtype::uint8,
                                              {std::max<std::int64_t>(bytes, m_block.size())});
                if (!fresh)
                {
                    return fresh.error();
                }
                m_block = std::move(fresh.value());
            }
            // The layout is made again only when the shape changes.
            if (m_layout == nullptr || m_elem != elem || m_layout->shape != shape)
            {
                m_layout = buffer::c_layout(elem, shape);
                m_elem = elem;
            }
            return m_block.view(elem, m_layout);
        }

    private:
        mutable buffer m_block; // uint8 bytes, grown to the largest size seen
        mutable layout_ref m_layout;
        mutable ir::dtype m_elem = ir::dtype::uint8;
    };
} // namespace specula::backends::cpu
