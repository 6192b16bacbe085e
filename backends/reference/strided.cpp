#include "backends/reference/strided.hpp"

namespace specula::backends::reference
{
    std::int64_t strided_view::size() const
    {
        std::int64_t n = 1;
        for (int d = 0; d < rank; ++d)
        {
            n *= shape[d];
        }
        return n;
    }

    bool strided_view::is_contiguous() const
    {
        auto expect = static_cast<std::int64_t>(scalar_size(type));
        for (int d = rank - 1; d >= 0; --d)
        {
            if (shape[d] != 1 && strides[d] != expect)
            {
                return false;
            }
            expect *= shape[d];
        }
        return true;
    }

    strided_view contiguous_view(void* data, scalar type, int rank, const std::int64_t* shape)
    {
        strided_view v;
        v.data = static_cast<std::byte*>(data);
        v.type = type;
        v.rank = rank;
        auto stride = static_cast<std::int64_t>(scalar_size(type));
        for (int d = rank - 1; d >= 0; --d)
        {
            v.shape[d] = shape[d];
            v.strides[d] = stride;
            stride *= shape[d];
        }
        return v;
    }

    bool broadcast_shapes(int rank_a, const std::int64_t* a, int rank_b, const std::int64_t* b,
                          int& rank_out, dims& out)
    {
        rank_out = rank_a > rank_b ? rank_a : rank_b;
        if (rank_out > max_rank)
        {
            return false;
        }
        for (int i = 0; i < rank_out; ++i)
        {
            int ia = rank_a - rank_out + i;
            int ib = rank_b - rank_out + i;
            std::int64_t da = ia >= 0 ? a[ia] : 1;
            std::int64_t db = ib >= 0 ? b[ib] : 1;
            if (da != db && da != 1 && db != 1)
            {
                return false;
            }
            out[i] = da == 1 ? db : da;
        }
        return true;
    }

    bool broadcast_view(const strided_view& v, int rank, const std::int64_t* shape,
                        strided_view& out)
    {
        if (v.rank > rank || rank > max_rank)
        {
            return false;
        }
        out = v;
        out.rank = rank;
        const int lead = rank - v.rank;
        for (int d = 0; d < rank; ++d)
        {
            const int src = d - lead;
            const std::int64_t have = src >= 0 ? v.shape[src] : 1;
            if (have != shape[d] && have != 1)
            {
                return false;
            }
            out.shape[d] = shape[d];
            out.strides[d] = (src >= 0 && have == shape[d]) ? v.strides[src] : 0;
        }
        return true;
    }
} // namespace specula::backends::reference
