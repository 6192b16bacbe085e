#include "backends/reference/linalg.hpp"

#include "backends/reference/elementwise.hpp"
#include "backends/reference/numpy_math.hpp"

namespace specula::backends::reference
{
    namespace
    {
        // One contraction: for every output element, a and b pointers walk the
        // output dims with their own strides (0 where they do not take part),
        // then k runs over `depth` elements.
        struct contraction
        {
            strided_view out;
            dims a_strides{};
            dims b_strides{};
            const std::byte* a = nullptr;
            const std::byte* b = nullptr;
            scalar a_type = scalar::f64;
            scalar b_type = scalar::f64;
            std::int64_t depth = 0;
            std::int64_t a_step = 0;
            std::int64_t b_step = 0;
        };

        template <class T>
        T multiply_add(T acc, T x, T y)
        {
            if constexpr (std::is_same_v<T, bool>)
            {
                return acc || (x && y);
            }
            else
            {
                return npmath::wrap_add(acc, npmath::wrap_mul(x, y));
            }
        }

        template <class T>
        void contract_typed(const contraction& c)
        {
            auto* a = const_cast<std::byte*>(c.a);
            auto* b = const_cast<std::byte*>(c.b);
            for_each_element<3>(c.out.rank, c.out.shape.data(), {c.out.data, a, b},
                                {c.out.strides.data(), c.a_strides.data(), c.b_strides.data()},
                                [&](const auto& p)
                                {
                                    T acc = T(0);
                                    for (std::int64_t k = 0; k < c.depth; ++k)
                                    {
                                        const T x = load_as<T>(p[1] + k * c.a_step, c.a_type);
                                        const T y = load_as<T>(p[2] + k * c.b_step, c.b_type);
                                        acc = multiply_add(acc, x, y);
                                    }
                                    store<T>(p[0], acc);
                                });
        }

        void contract(const contraction& c)
        {
            visit_scalar(c.out.type,
                         [&](auto t) { contract_typed<typename decltype(t)::type>(c); });
        }

        // Appends a dim of the given extent/stride to a view.
        void push(strided_view& v, std::int64_t extent, std::int64_t stride)
        {
            v.shape[v.rank] = extent;
            v.strides[v.rank] = stride;
            ++v.rank;
        }

        // `out` seen with the un-squeezed matmul shape (batch..., m, p).
        bool expand_out(const strided_view& out, int rank, const dims& shape, bool a_vec,
                        bool b_vec, strided_view& full)
        {
            full = out;
            full.rank = 0;
            int src = 0;
            for (int d = 0; d < rank; ++d)
            {
                const bool dropped = (a_vec && d == rank - 2) || (b_vec && d == rank - 1);
                if (dropped)
                {
                    push(full, 1, 0);
                    continue;
                }
                if (src >= out.rank || out.shape[src] != shape[d])
                {
                    return false;
                }
                push(full, shape[d], out.strides[src]);
                ++src;
            }
            return src == out.rank;
        }
    } // namespace

    status run_matmul(const strided_view& a_in, const strided_view& b_in, const strided_view& out)
    {
        if (a_in.rank == 0 || b_in.rank == 0 || a_in.rank >= max_rank || b_in.rank >= max_rank)
        {
            return status::invalid("matmul: operands must have rank 1..15");
        }
        strided_view a = a_in;
        strided_view b = b_in;
        const bool a_vec = a.rank == 1;
        const bool b_vec = b.rank == 1;
        if (a_vec)
        {
            a.rank = 0;
            push(a, 1, 0);
            push(a, a_in.shape[0], a_in.strides[0]);
        }
        if (b_vec)
        {
            push(b, 1, 0);
        }
        const std::int64_t m = a.shape[a.rank - 2];
        const std::int64_t n = a.shape[a.rank - 1];
        const std::int64_t p = b.shape[b.rank - 1];
        if (b.shape[b.rank - 2] != n)
        {
            return status::invalid("matmul: inner dimensions differ");
        }
        int batch_rank = 0;
        dims shape{};
        if (!broadcast_shapes(a.rank - 2, a.shape.data(), b.rank - 2, b.shape.data(), batch_rank,
                              shape) ||
            batch_rank + 2 > max_rank)
        {
            return status::invalid("matmul: batch dims do not broadcast");
        }
        shape[batch_rank] = m;
        shape[batch_rank + 1] = p;
        const int rank = batch_rank + 2;
        contraction c;
        if (!expand_out(out, rank, shape, a_vec, b_vec, c.out))
        {
            return status::invalid("matmul: wrong output shape");
        }
        strided_view a_batch;
        strided_view b_batch;
        strided_view a_lead = a;
        a_lead.rank -= 2;
        strided_view b_lead = b;
        b_lead.rank -= 2;
        broadcast_view(a_lead, batch_rank, shape.data(), a_batch);
        broadcast_view(b_lead, batch_rank, shape.data(), b_batch);
        for (int d = 0; d < batch_rank; ++d)
        {
            c.a_strides[d] = a_batch.strides[d];
            c.b_strides[d] = b_batch.strides[d];
        }
        c.a_strides[batch_rank] = a.strides[a.rank - 2];
        c.b_strides[batch_rank + 1] = b.strides[b.rank - 1];
        c.a = a.data;
        c.b = b.data;
        c.a_type = a.type;
        c.b_type = b.type;
        c.depth = n;
        c.a_step = a.strides[a.rank - 1];
        c.b_step = b.strides[b.rank - 2];
        contract(c);
        return status::ok();
    }

    status run_dot(const strided_view& a, const strided_view& b, const strided_view& out)
    {
        if (a.rank == 0 || b.rank == 0)
        {
            return run_binary(binary_op::multiply, a, b, out);
        }
        const int b_axis = b.rank == 1 ? 0 : b.rank - 2;
        const std::int64_t n = a.shape[a.rank - 1];
        if (b.shape[b_axis] != n)
        {
            return status::invalid("dot: shapes not aligned");
        }
        if (out.rank != a.rank + b.rank - 2)
        {
            return status::invalid("dot: wrong output rank");
        }
        contraction c;
        c.out = out;
        int d = 0;
        for (int i = 0; i + 1 < a.rank; ++i, ++d)
        {
            c.a_strides[d] = a.strides[i];
        }
        for (int i = 0; i < b.rank; ++i)
        {
            if (i != b_axis)
            {
                c.b_strides[d++] = b.strides[i];
            }
        }
        for (int i = 0; i < out.rank; ++i)
        {
            const std::int64_t want = i < a.rank - 1 ? a.shape[i] : 0;
            if (i < a.rank - 1 && out.shape[i] != want)
            {
                return status::invalid("dot: wrong output shape");
            }
        }
        c.a = a.data;
        c.b = b.data;
        c.a_type = a.type;
        c.b_type = b.type;
        c.depth = n;
        c.a_step = a.strides[a.rank - 1];
        c.b_step = b.strides[b_axis];
        contract(c);
        return status::ok();
    }

    status run_outer(const strided_view& a, const strided_view& b, const strided_view& out)
    {
        if (!a.is_contiguous() || !b.is_contiguous() || out.rank != 2 || out.shape[0] != a.size() ||
            out.shape[1] != b.size())
        {
            return status::invalid("outer: needs contiguous operands and an (M, N) output");
        }
        const std::int64_t item_a = static_cast<std::int64_t>(scalar_size(a.type));
        const std::int64_t item_b = static_cast<std::int64_t>(scalar_size(b.type));
        const std::int64_t col_shape[2] = {a.size(), 1};
        const std::int64_t row_shape[2] = {1, b.size()};
        strided_view col = contiguous_view(a.data, a.type, 2, col_shape);
        strided_view row = contiguous_view(b.data, b.type, 2, row_shape);
        col.strides[0] = item_a;
        row.strides[1] = item_b;
        return run_binary(binary_op::multiply, col, row, out);
    }
} // namespace specula::backends::reference
