#include "backends/reference/indexing.hpp"

#include "backends/reference/elementwise.hpp"

namespace specula::backends::reference
{
    namespace
    {
        // v without dims [first, first + count), its data moved to `at`.
        strided_view drop_dims(const strided_view& v, int first, int count, std::byte* at)
        {
            strided_view r = v;
            r.data = at;
            for (int d = first; d + count < v.rank; ++d)
            {
                r.shape[d] = v.shape[d + count];
                r.strides[d] = v.strides[d + count];
            }
            r.rank = v.rank - count;
            return r;
        }

        // The shape of np.take(x, idx, axis).
        bool take_shape(const strided_view& x, const strided_view& idx, int axis, int& rank,
                        dims& shape)
        {
            rank = x.rank - 1 + idx.rank;
            if (axis < 0 || axis >= x.rank || rank > max_rank)
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

        // Calls f(position, part_ptr) for each index of idx in C order, with
        // part_ptr the start of that index's block of `parts` (whose dims
        // [axis, axis + idx.rank) follow idx).
        template <class F>
        status for_each_index(const strided_view& idx, std::int64_t extent,
                              const strided_view& parts, int axis, F&& f)
        {
            status st;
            for_each_element<2>(idx.rank, idx.shape.data(), {idx.data, parts.data},
                                {idx.strides.data(), parts.strides.data() + axis},
                                [&](const auto& p)
                                {
                                    if (!st)
                                    {
                                        return;
                                    }
                                    std::int64_t i = load_as<std::int64_t>(p[0], idx.type);
                                    i += i < 0 ? extent : 0;
                                    if (i < 0 || i >= extent)
                                    {
                                        st = status::runtime("index out of bounds");
                                        return;
                                    }
                                    st = f(i, p[1]);
                                });
            return st;
        }
    } // namespace

    status run_take(const strided_view& x, const strided_view& idx, int axis,
                    const strided_view& out)
    {
        int rank = 0;
        dims shape{};
        if (!take_shape(x, idx, axis, rank, shape) || rank != out.rank)
        {
            return status::invalid("take: bad axis or output rank");
        }
        return for_each_index(idx, x.shape[axis], out, axis,
                              [&](std::int64_t i, std::byte* at)
                              {
                                  const strided_view src =
                                      drop_dims(x, axis, 1, x.data + i * x.strides[axis]);
                                  return run_cast(src, drop_dims(out, axis, idx.rank, at));
                              });
    }

    status run_take_update(const strided_view& x, const strided_view& idx, const strided_view& v,
                           int axis, const strided_view& out)
    {
        int rank = 0;
        dims shape{};
        strided_view values;
        if (!take_shape(x, idx, axis, rank, shape) ||
            !broadcast_view(v, rank, shape.data(), values))
        {
            return status::invalid("take_update: values do not fit");
        }
        if (out.data != x.data)
        {
            if (status st = run_cast(x, out); !st)
            {
                return st;
            }
        }
        return for_each_index(idx, x.shape[axis], values, axis,
                              [&](std::int64_t i, std::byte* at)
                              {
                                  const strided_view dst =
                                      drop_dims(out, axis, 1, out.data + i * out.strides[axis]);
                                  return run_cast(drop_dims(values, axis, idx.rank, at), dst);
                              });
    }

    std::int64_t count_true(const strided_view& mask)
    {
        std::int64_t n = 0;
        for_each_element<1>(mask.rank, mask.shape.data(), {mask.data}, {mask.strides.data()},
                            [&](const auto& p) { n += load_as<bool>(p[0], mask.type) ? 1 : 0; });
        return n;
    }

    namespace
    {
        bool mask_fits(const strided_view& x, const strided_view& mask)
        {
            if (mask.rank > x.rank)
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

        // Calls f(x_block_ptr, j) for the j-th selected block of x.
        template <class F>
        status for_each_selected(const strided_view& x, const strided_view& mask, F&& f)
        {
            status st;
            std::int64_t j = 0;
            for_each_element<2>(mask.rank, mask.shape.data(), {mask.data, x.data},
                                {mask.strides.data(), x.strides.data()},
                                [&](const auto& p)
                                {
                                    if (st && load_as<bool>(p[0], mask.type))
                                    {
                                        st = f(p[1], j++);
                                    }
                                });
            return st;
        }
    } // namespace

    status run_mask_select(const strided_view& x, const strided_view& mask, const strided_view& out)
    {
        if (!mask_fits(x, mask) || out.rank != x.rank - mask.rank + 1 ||
            out.shape[0] != count_true(mask))
        {
            return status::invalid("mask_select: mask or output shape mismatch");
        }
        return for_each_selected(x, mask,
                                 [&](std::byte* block, std::int64_t j)
                                 {
                                     const strided_view src = drop_dims(x, 0, mask.rank, block);
                                     return run_cast(
                                         src, drop_dims(out, 0, 1, out.data + j * out.strides[0]));
                                 });
    }

    status run_mask_update(const strided_view& x, const strided_view& mask, const strided_view& v,
                           const strided_view& out)
    {
        if (!mask_fits(x, mask))
        {
            return status::invalid("mask_update: mask shape mismatch");
        }
        dims shape{};
        shape[0] = count_true(mask);
        for (int d = mask.rank; d < x.rank; ++d)
        {
            shape[d - mask.rank + 1] = x.shape[d];
        }
        strided_view values;
        if (!broadcast_view(v, x.rank - mask.rank + 1, shape.data(), values))
        {
            return status::invalid("mask_update: values do not broadcast");
        }
        if (out.data != x.data)
        {
            if (status st = run_cast(x, out); !st)
            {
                return st;
            }
        }
        strided_view out_x = out;
        return for_each_selected(out_x, mask,
                                 [&](std::byte* block, std::int64_t j)
                                 {
                                     const strided_view src = drop_dims(
                                         values, 0, 1, values.data + j * values.strides[0]);
                                     return run_cast(src, drop_dims(out, 0, mask.rank, block));
                                 });
    }
} // namespace specula::backends::reference
