// Integer-array and boolean-mask indexing: GATHER (np.take), GATHER_UPDATE
// (x[idx] = v, functional), MASK_SELECT (x[mask]) and MASK_UPDATE
// (x[mask] = v, functional). Pure data movement plus C conversions of the
// assigned values, so the results are NumPy's bit for bit. Semantics follow
// the reference backend (backends/reference/indexing.cpp): negative indices
// count from the end, an index out of range is a runtime_error (NumPy's
// IndexError), duplicate indices of an update keep the last value in C order
// of the index array (NumPy's assignment order).
//
// Every index is checked, and the indices, values and mask read, before the
// output is written, so a kernel the plan runs in place (the output is x's
// memory) is correct even when the index array, the mask or the values are
// views of x.

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/kernel_block.hpp"
#include "backends/cpu/strided_copy.hpp"
#include "backends/reference/view.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace specula::backends::cpu
{
    namespace
    {
        using reference::view_of;

        // x split at `axis` (or after the first `lead` dims): elements before,
        // at, and after, for C-contiguous blocks.
        struct split3
        {
            std::int64_t outer = 1;
            std::int64_t extent = 1;
            std::int64_t inner = 1;
        };

        split3 split_at(const strided_view& x, int axis)
        {
            split3 s;
            for (int d = 0; d < axis; ++d)
            {
                s.outer *= x.shape[d];
            }
            s.extent = x.shape[axis];
            for (int d = axis + 1; d < x.rank; ++d)
            {
                s.inner *= x.shape[d];
            }
            return s;
        }

        // Copies `count` blocks of `bytes` bytes; the common element sizes get
        // a typed loop instead of a memcpy call per element.
        template <class F>
        void move_blocks(std::size_t bytes, std::int64_t count, F&& at)
        {
            auto typed = [&](auto tag)
            {
                using T = decltype(tag);
                for (std::int64_t k = 0; k < count; ++k)
                {
                    auto [dst, src] = at(k);
                    T v;
                    std::memcpy(&v, src, sizeof(T));
                    std::memcpy(dst, &v, sizeof(T));
                }
            };
            switch (bytes)
            {
            case 8:
                return typed(std::uint64_t{});
            case 4:
                return typed(std::uint32_t{});
            case 1:
                return typed(std::uint8_t{});
            default:
                for (std::int64_t k = 0; k < count; ++k)
                {
                    auto [dst, src] = at(k);
                    std::memcpy(dst, src, bytes);
                }
            }
        }

        // `v`, or a C-contiguous copy of it (in dtype `to`) when it is strided,
        // of another dtype, or shares bytes with `out`.
        strided_view stable_contiguous(const strided_view& v, reference::scalar to,
                                       const strided_view& out, std::vector<std::byte>& scratch)
        {
            if (v.is_contiguous() && v.type == to && !overlaps(v, out))
            {
                return v;
            }
            return contiguous_copy(v, to, scratch);
        }

        // The indices as int64 in [0, extent), or a runtime_error.
        status normalized_indices(const strided_view& idx, std::int64_t extent,
                                  std::vector<std::int64_t>& out)
        {
            out.resize(static_cast<std::size_t>(idx.size()));
            const strided_view dst = reference::contiguous_view(out.data(), reference::scalar::i64,
                                                                idx.rank, idx.shape.data());
            if (status st = copy_cast(idx, dst); !st)
            {
                return st;
            }
            for (std::int64_t& i : out)
            {
                i += i < 0 ? extent : 0;
                if (i < 0 || i >= extent)
                {
                    return status::runtime("index out of bounds");
                }
            }
            return status::ok();
        }

        status check_output(const strided_view& out)
        {
            return out.is_contiguous() ? status::ok()
                                       : status::internal("indexing: strided output");
        }

        class gather_kernel final : public kernel
        {
        public:
            // Any layout: strided inputs are read in place or copied by
            // strided_copy, so the executor need not stage them.
            bool reads_layout(int, const buffer&) const override { return true; }
            explicit gather_kernel(int axis) : m_axis(axis) {}

        private:
            status run_impl(const kernel_io& io) const override
            {
                const strided_view out = view_of(io.out(0));
                strided_view x = view_of(io.in(0));
                if (status st = check_output(out); !st)
                {
                    return st;
                }
                x = stable_contiguous(x, x.type, out, m_x);
                if (status st = normalized_indices(view_of(io.in(1)), x.shape[m_axis], m_index);
                    !st)
                {
                    return st;
                }
                const split3 s = split_at(x, m_axis);
                const auto m = static_cast<std::int64_t>(m_index.size());
                if (out.size() != s.outer * m * s.inner)
                {
                    return status::invalid("gather: output shape");
                }
                const std::size_t block = static_cast<std::size_t>(s.inner) * io.out(0).itemsize();
                const std::int64_t* idx = m_index.data();
                move_blocks(block, s.outer * m,
                            [&](std::int64_t k)
                            {
                                const std::int64_t o = k / m;
                                const std::int64_t j = k - o * m;
                                return std::pair{out.data + k * block,
                                                 x.data + (o * s.extent + idx[j]) * block};
                            });
                return status::ok();
            }

            int m_axis;
            // Per run scratch (one run at a time per executable).
            mutable std::vector<std::int64_t> m_index;
            mutable std::vector<std::byte> m_x;
        };

        // The shape np.take(x, idx, axis) has: the assigned values' target.
        bool take_shape(const strided_view& x, const strided_view& idx, int axis, int& rank,
                        reference::dims& shape)
        {
            rank = x.rank - 1 + idx.rank;
            if (rank > reference::max_rank)
            {
                return false;
            }
            int d = 0;
            for (int i = 0; i < axis; ++i)
            {
                shape[d++] = x.shape[i];
            }
            for (int i = 0; i < idx.rank; ++i)
            {
                shape[d++] = idx.shape[i];
            }
            for (int i = axis + 1; i < x.rank; ++i)
            {
                shape[d++] = x.shape[i];
            }
            return true;
        }

        class gather_update_kernel final : public kernel
        {
        public:
            // Any layout: strided inputs are read in place or copied by
            // strided_copy, so the executor need not stage them.
            bool reads_layout(int, const buffer&) const override { return true; }
            gather_update_kernel(int axis, std::shared_ptr<thread_pool> pool)
                : m_axis(axis), m_pool(std::move(pool))
            {
            }

        private:
            status run_impl(const kernel_io& io) const override
            {
                const strided_view x = view_of(io.in(0));
                const strided_view out = view_of(io.out(0));
                if (status st = check_output(out); !st)
                {
                    return st;
                }
                if (status st = normalized_indices(view_of(io.in(1)), x.shape[m_axis], m_index);
                    !st)
                {
                    return st;
                }
                int rank = 0;
                reference::dims shape{};
                strided_view values;
                if (!take_shape(x, view_of(io.in(1)), m_axis, rank, shape) ||
                    !reference::broadcast_view(view_of(io.in(2)), rank, shape.data(), values))
                {
                    return status::invalid("take_update: values do not fit");
                }
                values = stable_contiguous(values, out.type, out, m_values);
                if (out.data != x.data)
                {
                    if (status st = copy_cast(x, out, m_pool.get()); !st)
                    {
                        return st;
                    }
                }
                const split3 s = split_at(out, m_axis);
                const auto m = static_cast<std::int64_t>(m_index.size());
                const std::size_t block = static_cast<std::size_t>(s.inner) * io.out(0).itemsize();
                const std::int64_t* idx = m_index.data();
                // Block k of the values goes to its index's block; for equal
                // indices the later k (C order of idx) lands last.
                move_blocks(block, s.outer * m,
                            [&](std::int64_t k)
                            {
                                const std::int64_t o = k / m;
                                const std::int64_t j = k - o * m;
                                return std::pair{out.data + (o * s.extent + idx[j]) * block,
                                                 values.data + k * block};
                            });
                return status::ok();
            }

            int m_axis;
            std::shared_ptr<thread_pool> m_pool;
            mutable std::vector<std::int64_t> m_index;
            mutable std::vector<std::byte> m_values;
        };

        bool mask_fits(const strided_view& x, const strided_view& mask)
        {
            if (mask.rank > x.rank || mask.type != reference::scalar::b1)
            {
                return false;
            }
            for (int d = 0; d < mask.rank; ++d)
            {
                if (mask.shape[d] != x.shape[d])
                {
                    return false;
                }
            }
            return true;
        }

        // The positions of the true elements of a contiguous bool mask.
        void true_positions(const strided_view& mask, std::vector<std::int64_t>& at)
        {
            at.clear();
            const auto* m = reinterpret_cast<const std::uint8_t*>(mask.data);
            const std::int64_t n = mask.size();
            for (std::int64_t i = 0; i < n; ++i)
            {
                if (m[i] != 0)
                {
                    at.push_back(i);
                }
            }
        }

        std::int64_t inner_size(const strided_view& x, int from)
        {
            std::int64_t n = 1;
            for (int d = from; d < x.rank; ++d)
            {
                n *= x.shape[d];
            }
            return n;
        }

        class mask_select_kernel final : public kernel
        {
        public:
            // Any layout: strided inputs are read in place or copied by
            // strided_copy, so the executor need not stage them.
            bool reads_layout(int, const buffer&) const override { return true; }
            bool allocates_outputs() const override { return true; }

        private:
            status run_impl(const kernel_io& io) const override
            {
                const buffer& xb = io.in(0);
                strided_view x = view_of(xb);
                strided_view mask = view_of(io.in(1));
                if (!mask_fits(x, mask))
                {
                    return status::invalid("mask_select: mask or output shape mismatch");
                }
                if (!x.is_contiguous())
                {
                    x = contiguous_copy(x, x.type, m_x);
                }
                if (!mask.is_contiguous())
                {
                    mask = contiguous_copy(mask, mask.type, m_mask);
                }
                true_positions(mask, m_at);
                m_shape.assign(1, static_cast<std::int64_t>(m_at.size()));
                for (int d = mask.rank; d < x.rank; ++d)
                {
                    m_shape.push_back(x.shape[d]);
                }
                auto out = m_out.take(io.out(0), xb.dtype(), m_shape);
                if (!out)
                {
                    return out.error();
                }
                io.out(0) = std::move(out.value());
                std::byte* dst = io.out(0).data();
                const std::size_t block =
                    static_cast<std::size_t>(inner_size(x, mask.rank)) * xb.itemsize();
                const std::int64_t* at = m_at.data();
                move_blocks(block, static_cast<std::int64_t>(m_at.size()),
                            [&](std::int64_t k) {
                                return std::pair{dst + k * block, x.data + at[k] * block};
                            });
                return status::ok();
            }

            mutable std::vector<std::int64_t> m_at;
            mutable std::vector<std::byte> m_x;
            mutable std::vector<std::byte> m_mask;
            mutable std::vector<std::int64_t> m_shape;
            kernel_block m_out; // the output's memory, reused run after run
        };

        class mask_update_kernel final : public kernel
        {
        public:
            // Any layout: strided inputs are read in place or copied by
            // strided_copy, so the executor need not stage them.
            bool reads_layout(int, const buffer&) const override { return true; }
            explicit mask_update_kernel(std::shared_ptr<thread_pool> pool) : m_pool(std::move(pool))
            {
            }

        private:
            status run_impl(const kernel_io& io) const override
            {
                const strided_view x = view_of(io.in(0));
                const strided_view out = view_of(io.out(0));
                strided_view mask = view_of(io.in(1));
                if (status st = check_output(out); !st)
                {
                    return st;
                }
                if (!mask_fits(x, mask))
                {
                    return status::invalid("mask_update: mask shape mismatch");
                }
                if (!mask.is_contiguous())
                {
                    mask = contiguous_copy(mask, mask.type, m_mask);
                }
                true_positions(mask, m_at); // read before out is written
                reference::dims shape{};
                shape[0] = static_cast<std::int64_t>(m_at.size());
                for (int d = mask.rank; d < x.rank; ++d)
                {
                    shape[d - mask.rank + 1] = x.shape[d];
                }
                strided_view values;
                if (!reference::broadcast_view(view_of(io.in(2)), x.rank - mask.rank + 1,
                                               shape.data(), values))
                {
                    return status::invalid("mask_update: values do not broadcast");
                }
                values = stable_contiguous(values, out.type, out, m_values);
                if (out.data != x.data)
                {
                    if (status st = copy_cast(x, out, m_pool.get()); !st)
                    {
                        return st;
                    }
                }
                const std::size_t block =
                    static_cast<std::size_t>(inner_size(x, mask.rank)) * io.out(0).itemsize();
                const std::int64_t* at = m_at.data();
                move_blocks(block, static_cast<std::int64_t>(m_at.size()),
                            [&](std::int64_t k) {
                                return std::pair{out.data + at[k] * block, values.data + k * block};
                            });
                return status::ok();
            }

            std::shared_ptr<thread_pool> m_pool;
            mutable std::vector<std::int64_t> m_at;
            mutable std::vector<std::byte> m_mask;
            mutable std::vector<std::byte> m_values;
        };
    } // namespace

    result<std::unique_ptr<kernel>> make_index_kernel(const ir::graph& g, const ir::node& n,
                                                      const kernel_context& ctx)
    {
        const bool indexing = n.code == ir::op::GATHER || n.code == ir::op::GATHER_UPDATE ||
                              n.code == ir::op::MASK_SELECT || n.code == ir::op::MASK_UPDATE;
        if (!indexing)
        {
            return status::unimplemented("not an indexing op");
        }
        if (!ranks_fit(g, n))
        {
            return status::unimplemented("rank above " + std::to_string(reference::max_rank));
        }
        const int rank = g.type_of(n.inputs[0]).dims.rank();
        switch (n.code)
        {
        case ir::op::GATHER:
        case ir::op::GATHER_UPDATE:
        {
            int axis = n.attr_as<ir::axis_attr>().axis;
            axis += axis < 0 ? rank : 0;
            if (axis < 0 || axis >= rank)
            {
                return status::invalid("gather: bad axis");
            }
            if (n.code == ir::op::GATHER)
            {
                return std::unique_ptr<kernel>(new gather_kernel(axis));
            }
            return std::unique_ptr<kernel>(new gather_update_kernel(axis, ctx.pool));
        }
        case ir::op::MASK_SELECT:
            return std::unique_ptr<kernel>(new mask_select_kernel());
        default:
            return std::unique_ptr<kernel>(new mask_update_kernel(ctx.pool));
        }
    }
} // namespace specula::backends::cpu
