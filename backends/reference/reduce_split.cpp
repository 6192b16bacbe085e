#include "backends/reference/reduce_split.hpp"

namespace specula::backends::reference
{
    namespace
    {
        void push_dim(strided_view& v, std::int64_t extent, std::int64_t stride)
        {
            v.shape[v.rank] = extent;
            v.strides[v.rank] = stride;
            ++v.rank;
        }

        int reduced_count(std::uint32_t axes, int rank)
        {
            int n = 0;
            for (int d = 0; d < rank; ++d)
            {
                n += (axes >> d) & 1U;
            }
            return n;
        }

        // Number of inner dims after the last surviving dim of extent > 1:
        // those coalesce with each other in NumPy's iterator.
        int trailing_block(const strided_view& in, std::uint32_t axes)
        {
            int block = 0;
            for (int d = in.rank - 1; d >= 0; --d)
            {
                const bool reduced = (axes >> d) & 1U;
                if (!reduced && in.shape[d] != 1)
                {
                    break;
                }
                block += (reduced && in.shape[d] != 1) ? 1 : 0;
            }
            return block;
        }
    } // namespace

    bool split_reduction(const strided_view& in, std::uint32_t axes, const strided_view& out,
                         reduce_split& split)
    {
        if (in.rank < 32 && (axes >> in.rank) != 0)
        {
            return false;
        }
        const bool keep = out.rank == in.rank;
        if (!keep && out.rank != in.rank - reduced_count(axes, in.rank))
        {
            return false;
        }
        split = reduce_split{};
        split.outer_in.data = in.data;
        split.outer_in.type = in.type;
        split.outer_out.data = out.data;
        split.outer_out.type = out.type;
        split.inner.type = in.type;
        int od = 0;
        for (int d = 0; d < in.rank; ++d)
        {
            if ((axes >> d) & 1U)
            {
                if (keep && out.shape[d] != 1)
                {
                    return false;
                }
                od += keep ? 1 : 0;
                split.count *= in.shape[d];
                if (in.shape[d] != 1)
                {
                    push_dim(split.inner, in.shape[d], in.strides[d]);
                }
                continue;
            }
            if (out.shape[od] != in.shape[d])
            {
                return false;
            }
            push_dim(split.outer_in, in.shape[d], in.strides[d]);
            push_dim(split.outer_out, in.shape[d], out.strides[od]);
            ++od;
        }
        split.block_start = split.inner.rank - trailing_block(in, axes);
        return true;
    }
} // namespace specula::backends::reference
