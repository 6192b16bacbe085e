#include "backends/cpu/strided_copy.hpp"

#include "backends/cpu/builtin_loops.hpp"
#include "backends/cpu/threading.hpp"

#include <algorithm>
#include <cstring>

namespace specula::backends::cpu
{
    namespace
    {
        // The copy reduced to its essentials: size-1 dims dropped, adjacent
        // dims merged where both operands step through them as one.
        struct copy_plan
        {
            int rank = 0;
            reference::dims shape{};
            reference::dims src_strides{};
            reference::dims dst_strides{};
            bool empty = false;
        };

        copy_plan plan_of(const strided_view& src, const strided_view& dst)
        {
            copy_plan p;
            for (int d = 0; d < dst.rank; ++d)
            {
                if (dst.shape[d] == 0)
                {
                    p.empty = true;
                    return p;
                }
                if (dst.shape[d] == 1)
                {
                    continue;
                }
                if (p.rank > 0)
                {
                    const int last = p.rank - 1;
                    if (p.src_strides[last] == src.strides[d] * dst.shape[d] &&
                        p.dst_strides[last] == dst.strides[d] * dst.shape[d])
                    {
                        p.shape[last] *= dst.shape[d];
                        p.src_strides[last] = src.strides[d];
                        p.dst_strides[last] = dst.strides[d];
                        continue;
                    }
                }
                p.shape[p.rank] = dst.shape[d];
                p.src_strides[p.rank] = src.strides[d];
                p.dst_strides[p.rank] = dst.strides[d];
                ++p.rank;
            }
            return p;
        }

        // Rows [first, last) of the plan's outer dims (all but the innermost).
        void copy_rows(const copy_plan& p, const strided_view& src, const strided_view& dst,
                       ufunc_loop loop, bool same, std::int64_t first, std::int64_t last)
        {
            const int inner = p.rank - 1;
            const std::intptr_t n = inner >= 0 ? p.shape[inner] : 1;
            const std::intptr_t steps[2] = {inner >= 0 ? p.src_strides[inner] : 0,
                                            inner >= 0 ? p.dst_strides[inner] : 0};
            const auto itemsize = static_cast<std::intptr_t>(reference::scalar_size(dst.type));
            const bool block = same && steps[0] == itemsize && steps[1] == itemsize;
            for (std::int64_t row = first; row < last; ++row)
            {
                std::int64_t rest = row;
                std::byte* s = src.data;
                std::byte* d = dst.data;
                for (int k = inner - 1; k >= 0; --k)
                {
                    const std::int64_t i = rest % p.shape[k];
                    rest /= p.shape[k];
                    s += i * p.src_strides[k];
                    d += i * p.dst_strides[k];
                }
                if (block)
                {
                    std::memcpy(d, s, static_cast<std::size_t>(n * itemsize));
                    continue;
                }
                char* args[2] = {reinterpret_cast<char*>(s), reinterpret_cast<char*>(d)};
                loop.fn(args, &n, steps, loop.data);
            }
        }
    } // namespace

    ir::dtype dtype_of(reference::scalar s)
    {
        switch (s)
        {
        case reference::scalar::b1:
            return ir::dtype::bool_;
        case reference::scalar::i8:
            return ir::dtype::int8;
        case reference::scalar::i16:
            return ir::dtype::int16;
        case reference::scalar::i32:
            return ir::dtype::int32;
        case reference::scalar::i64:
            return ir::dtype::int64;
        case reference::scalar::u8:
            return ir::dtype::uint8;
        case reference::scalar::f32:
            return ir::dtype::float32;
        default:
            return ir::dtype::float64;
        }
    }

    status copy_cast(const strided_view& src, const strided_view& dst, thread_pool* pool)
    {
        if (src.rank != dst.rank)
        {
            return status::invalid("copy: ranks differ");
        }
        for (int d = 0; d < dst.rank; ++d)
        {
            if (src.shape[d] != dst.shape[d])
            {
                return status::invalid("copy: shapes differ");
            }
        }
        const copy_plan p = plan_of(src, dst);
        if (p.empty)
        {
            return status::ok();
        }
        const bool same = src.type == dst.type;
        const ufunc_loop loop = cast_loop(dtype_of(src.type), dtype_of(dst.type));
        std::int64_t rows = 1;
        for (int k = 0; k + 1 < p.rank; ++k)
        {
            rows *= p.shape[k];
        }
        const std::int64_t total = rows * (p.rank > 0 ? p.shape[p.rank - 1] : 1);
        if (pool == nullptr || pool->lanes() < 2 || rows < pool->lanes() ||
            total < parallel_min_elements)
        {
            copy_rows(p, src, dst, loop, same, 0, rows);
            return status::ok();
        }
        pool->run_split(rows, total / rows,
                        [&](int, std::int64_t r0, std::int64_t r1)
                        { copy_rows(p, src, dst, loop, same, r0, r1); });
        return status::ok();
    }

    bool overlaps(const strided_view& a, const strided_view& b)
    {
        auto range = [](const strided_view& v, std::byte*& lo, std::byte*& hi)
        {
            lo = v.data;
            hi = v.data + reference::scalar_size(v.type);
            for (int d = 0; d < v.rank; ++d)
            {
                if (v.shape[d] == 0)
                {
                    hi = lo; // touches nothing
                    return;
                }
                const std::int64_t span = (v.shape[d] - 1) * v.strides[d];
                (span < 0 ? lo : hi) += span;
            }
        };
        std::byte* alo = nullptr;
        std::byte* ahi = nullptr;
        std::byte* blo = nullptr;
        std::byte* bhi = nullptr;
        range(a, alo, ahi);
        range(b, blo, bhi);
        return alo < bhi && blo < ahi;
    }

    strided_view contiguous_copy(const strided_view& v, reference::scalar to,
                                 std::vector<std::byte>& scratch)
    {
        const std::size_t bytes = static_cast<std::size_t>(v.size()) * reference::scalar_size(to);
        if (scratch.size() < bytes)
        {
            scratch.resize(bytes);
        }
        strided_view out = reference::contiguous_view(scratch.data(), to, v.rank, v.shape.data());
        (void)copy_cast(v, out);
        return out;
    }

    bool ranks_fit(const ir::graph& g, const ir::node& n)
    {
        for (ir::value_id v : n.inputs)
        {
            if (g.type_of(v).dims.rank() > reference::max_rank)
            {
                return false;
            }
        }
        return g.type_of(n.outputs[0]).dims.rank() <= reference::max_rank;
    }
} // namespace specula::backends::cpu
