#include "backends/strided_copy.hpp"

#include <cstring>
#include <vector>

namespace specula::backends
{
    namespace
    {
        template <class T>
        std::byte* copy_row(std::byte* dst, const std::byte* src, std::int64_t n,
                            std::int64_t stride)
        {
            T* out = reinterpret_cast<T*>(dst);
            for (std::int64_t i = 0; i < n; ++i, src += stride)
            {
                std::memcpy(out + i, src, sizeof(T));
            }
            return dst + n * static_cast<std::int64_t>(sizeof(T));
        }

        std::byte* copy_row(std::byte* dst, const std::byte* src, std::int64_t n,
                            std::int64_t stride, std::size_t item)
        {
            if (stride == static_cast<std::int64_t>(item))
            {
                std::memcpy(dst, src, static_cast<std::size_t>(n) * item);
                return dst + n * static_cast<std::int64_t>(item);
            }
            switch (item)
            {
            case 8:
                return copy_row<std::uint64_t>(dst, src, n, stride);
            case 4:
                return copy_row<std::uint32_t>(dst, src, n, stride);
            case 2:
                return copy_row<std::uint16_t>(dst, src, n, stride);
            default:
                return copy_row<std::uint8_t>(dst, src, n, stride);
            }
        }
    } // namespace

    void copy_to_contiguous(const buffer& src, std::byte* dst)
    {
        const std::int64_t n = src.size();
        if (n == 0)
        {
            return;
        }
        const std::size_t item = src.itemsize();
        const int rank = src.rank();
        if (rank == 0)
        {
            std::memcpy(dst, src.data(), item);
            return;
        }
        const auto& shape = src.shape();
        const auto& strides = src.strides();
        const std::int64_t inner = shape.back();
        const std::int64_t inner_stride = strides.back();
        // An odometer over the outer dims; rows are copied whole.
        std::int64_t small[32] = {};
        std::vector<std::int64_t> large(rank > 32 ? static_cast<std::size_t>(rank) : 0, 0);
        std::int64_t* idx = rank > 32 ? large.data() : small;
        const std::byte* row = src.data();
        for (std::int64_t done = 0; done < n; done += inner)
        {
            dst = copy_row(dst, row, inner, inner_stride, item);
            for (int d = rank - 2; d >= 0; --d)
            {
                const auto du = static_cast<std::size_t>(d);
                row += strides[du];
                if (++idx[du] < shape[du])
                {
                    break;
                }
                row -= strides[du] * shape[du];
                idx[du] = 0;
            }
        }
    }
} // namespace specula::backends
