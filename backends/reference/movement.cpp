#include "backends/reference/movement.hpp"

#include "backends/reference/elementwise.hpp"

#include <cstring>

namespace specula::backends::reference
{
    namespace
    {
        // Walks a view in C order one element at a time.
        class c_order_cursor
        {
        public:
            explicit c_order_cursor(const strided_view& v) : m_view(v), m_ptr(v.data) {}

            std::byte* get() const { return m_ptr; }

            void advance()
            {
                for (int d = m_view.rank - 1; d >= 0; --d)
                {
                    m_ptr += m_view.strides[d];
                    if (++m_idx[d] < m_view.shape[d])
                    {
                        return;
                    }
                    m_ptr -= m_view.strides[d] * m_view.shape[d];
                    m_idx[d] = 0;
                }
            }

        private:
            const strided_view& m_view;
            std::byte* m_ptr;
            dims m_idx{};
        };
    } // namespace

    bool transpose_view(const strided_view& v, const int* perm, int n, strided_view& out)
    {
        if (n != v.rank)
        {
            return false;
        }
        out = v;
        unsigned seen = 0;
        for (int d = 0; d < n; ++d)
        {
            if (perm[d] < 0 || perm[d] >= n || ((seen >> perm[d]) & 1U))
            {
                return false;
            }
            seen |= 1U << perm[d];
            out.shape[d] = v.shape[perm[d]];
            out.strides[d] = v.strides[perm[d]];
        }
        return true;
    }

    bool slice_view(const strided_view& v, const slice_pick* items, int n, strided_view& out)
    {
        out = v;
        out.rank = 0;
        int axis = 0;
        for (int i = 0; i < n; ++i)
        {
            const slice_pick& it = items[i];
            if (out.rank >= max_rank)
            {
                return false;
            }
            if (it.what == slice_pick::kind::newaxis)
            {
                out.shape[out.rank] = 1;
                out.strides[out.rank++] = 0;
                continue;
            }
            if (axis >= v.rank)
            {
                return false;
            }
            const std::int64_t stride = v.strides[axis];
            const bool index = it.what == slice_pick::kind::index;
            if (index && (it.start < 0 || it.start >= v.shape[axis]))
            {
                return false;
            }
            if (it.count > 0)
            {
                out.data += it.start * stride;
            }
            if (!index)
            {
                out.shape[out.rank] = it.count;
                out.strides[out.rank++] = stride * it.step;
            }
            ++axis;
        }
        for (; axis < v.rank; ++axis)
        {
            if (out.rank >= max_rank)
            {
                return false;
            }
            out.shape[out.rank] = v.shape[axis];
            out.strides[out.rank++] = v.strides[axis];
        }
        return true;
    }

    status run_copy_flat(const strided_view& in, const strided_view& out)
    {
        if (in.size() != out.size() || in.type != out.type)
        {
            return status::invalid("reshape: size or dtype mismatch");
        }
        const std::size_t item = scalar_size(in.type);
        c_order_cursor dst(out);
        for_each_element<1>(in.rank, in.shape.data(), {in.data}, {in.strides.data()},
                            [&](const auto& p)
                            {
                                std::memmove(dst.get(), p[0], item);
                                dst.advance();
                            });
        return status::ok();
    }

    status run_concatenate(const strided_view* ins, int n, int axis, const strided_view& out)
    {
        if (axis < 0 || axis >= out.rank)
        {
            return status::invalid("concatenate: bad axis");
        }
        std::int64_t offset = 0;
        for (int i = 0; i < n; ++i)
        {
            strided_view part = out;
            part.shape[axis] = ins[i].shape[axis];
            part.data += offset * out.strides[axis];
            offset += ins[i].shape[axis];
            if (ins[i].rank != out.rank || offset > out.shape[axis])
            {
                return status::invalid("concatenate: operand shapes do not fit the output");
            }
            if (status st = run_cast(ins[i], part); !st)
            {
                return st;
            }
        }
        return offset == out.shape[axis] ? status::ok()
                                         : status::invalid("concatenate: output too large");
    }

    status run_stack(const strided_view* ins, int n, int axis, const strided_view& out)
    {
        if (axis < 0 || axis >= out.rank || out.shape[axis] != n)
        {
            return status::invalid("stack: bad axis");
        }
        for (int i = 0; i < n; ++i)
        {
            strided_view part = out;
            part.data += i * out.strides[axis];
            for (int d = axis; d + 1 < out.rank; ++d)
            {
                part.shape[d] = out.shape[d + 1];
                part.strides[d] = out.strides[d + 1];
            }
            part.rank = out.rank - 1;
            if (ins[i].rank != part.rank)
            {
                return status::invalid("stack: operand ranks differ");
            }
            if (status st = run_cast(ins[i], part); !st)
            {
                return st;
            }
        }
        return status::ok();
    }
} // namespace specula::backends::reference
