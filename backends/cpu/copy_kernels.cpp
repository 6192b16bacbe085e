// Ops that assemble their result from whole inputs: SLICE_UPDATE (x[s] = v,
// functional), CONCATENATE and STACK. Each is one or more strided copies with
// C conversions (strided_copy.hpp), bit-identical to NumPy by construction;
// large copies split across the pool's lanes.

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/strided_copy.hpp"
#include "backends/reference/movement.hpp"
#include "backends/reference/view.hpp"
#include "ir/slice.hpp"

#include <string>
#include <vector>

namespace specula::backends::cpu
{
    namespace
    {
        using reference::view_of;

        // The IR's slice items against the run-time sizes of `x`: the view of
        // x they select (as Python's slice.indices would normalise them).
        status slice_target(const std::vector<ir::slice_item>& items, const strided_view& x,
                            strided_view& out)
        {
            using reference::slice_pick;
            std::vector<slice_pick> picks;
            picks.reserve(items.size());
            int axis = 0;
            for (const ir::slice_item& item : items)
            {
                slice_pick p;
                if (item.what == ir::slice_item::kind::newaxis)
                {
                    p.what = slice_pick::kind::newaxis;
                    picks.push_back(p);
                    continue;
                }
                if (axis >= x.rank)
                {
                    return status::invalid("too many indices");
                }
                const auto r = ir::normalize_slice(item, x.shape[axis++]);
                p.what = item.what == ir::slice_item::kind::index ? slice_pick::kind::index
                                                                  : slice_pick::kind::range;
                if (p.what == slice_pick::kind::index && r.count == 0)
                {
                    return status::runtime("index out of range");
                }
                p.start = r.start;
                p.step = r.step;
                p.count = r.count;
                picks.push_back(p);
            }
            if (!reference::slice_view(x, picks.data(), static_cast<int>(picks.size()), out))
            {
                return status::invalid("slice does not fit the array");
            }
            return status::ok();
        }

        class slice_update_kernel final : public kernel
        {
        public:
            // Any layout: strided inputs are read in place or copied by
            // strided_copy, so the executor need not stage them.
            bool reads_layout(int, const buffer&) const override { return true; }
            slice_update_kernel(std::vector<ir::slice_item> items,
                                std::shared_ptr<thread_pool> pool)
                : m_items(std::move(items)), m_pool(std::move(pool))
            {
            }

        private:
            status run_impl(const kernel_io& io) const override
            {
                const strided_view x = view_of(io.in(0));
                const strided_view out = view_of(io.out(0));
                strided_view target;
                if (status st = slice_target(m_items, out, target); !st)
                {
                    return st;
                }
                strided_view values;
                if (!reference::broadcast_view(view_of(io.in(1)), target.rank, target.shape.data(),
                                               values))
                {
                    return status::invalid("slice_update: values do not broadcast");
                }
                // NumPy copies a source that overlaps its destination first.
                if (overlaps(values, out))
                {
                    values = contiguous_copy(values, values.type, m_values);
                }
                if (out.data != x.data)
                {
                    if (status st = copy_cast(x, out, m_pool.get()); !st)
                    {
                        return st;
                    }
                }
                return copy_cast(values, target, m_pool.get());
            }

            std::vector<ir::slice_item> m_items;
            std::shared_ptr<thread_pool> m_pool;
            mutable std::vector<std::byte> m_values;
        };

        class concatenate_kernel final : public kernel
        {
        public:
            // Any layout: strided inputs are read in place or copied by
            // strided_copy, so the executor need not stage them.
            bool reads_layout(int, const buffer&) const override { return true; }
            concatenate_kernel(int axis, bool stack, std::shared_ptr<thread_pool> pool)
                : m_axis(axis), m_stack(stack), m_pool(std::move(pool))
            {
            }

        private:
            // The part of `out` input i fills.
            status part_of(const strided_view& out, const strided_view& in, int i,
                           std::int64_t& offset, strided_view& part) const
            {
                part = out;
                if (m_stack)
                {
                    part.data += i * out.strides[m_axis];
                    for (int d = m_axis; d + 1 < out.rank; ++d)
                    {
                        part.shape[d] = out.shape[d + 1];
                        part.strides[d] = out.strides[d + 1];
                    }
                    part.rank = out.rank - 1;
                    return in.rank == part.rank ? status::ok()
                                                : status::invalid("stack: operand ranks differ");
                }
                part.shape[m_axis] = in.shape[m_axis];
                part.data += offset * out.strides[m_axis];
                offset += in.shape[m_axis];
                if (in.rank != out.rank || offset > out.shape[m_axis])
                {
                    return status::invalid("concatenate: operand shapes do not fit the output");
                }
                return status::ok();
            }

            status run_impl(const kernel_io& io) const override
            {
                const strided_view out = view_of(io.out(0));
                if (m_axis >= out.rank || (m_stack && out.shape[m_axis] != io.num_inputs))
                {
                    return status::invalid("concatenate/stack: bad axis");
                }
                std::int64_t offset = 0;
                for (int i = 0; i < io.num_inputs; ++i)
                {
                    const strided_view in = view_of(io.in(i));
                    strided_view part;
                    status st = part_of(out, in, i, offset, part);
                    if (st)
                    {
                        st = copy_cast(in, part, m_pool.get());
                    }
                    if (!st)
                    {
                        return st;
                    }
                }
                if (!m_stack && offset != out.shape[m_axis])
                {
                    return status::invalid("concatenate: output too large");
                }
                return status::ok();
            }

            int m_axis;
            bool m_stack;
            std::shared_ptr<thread_pool> m_pool;
        };
    } // namespace

    result<std::unique_ptr<kernel>> make_copy_kernel(const ir::graph& g, const ir::node& n,
                                                     const kernel_context& ctx)
    {
        if (n.code != ir::op::SLICE_UPDATE && n.code != ir::op::CONCATENATE &&
            n.code != ir::op::STACK)
        {
            return status::unimplemented("not a copy op");
        }
        if (!ranks_fit(g, n))
        {
            return status::unimplemented("rank above " + std::to_string(reference::max_rank));
        }
        if (n.code == ir::op::SLICE_UPDATE)
        {
            return std::unique_ptr<kernel>(
                new slice_update_kernel(n.attr_as<ir::slice_attr>().items, ctx.pool));
        }
        const bool stack = n.code == ir::op::STACK;
        // concatenate's axis counts in the inputs' rank, stack's in the result's.
        const int rank =
            stack ? g.type_of(n.outputs[0]).dims.rank() : g.type_of(n.inputs[0]).dims.rank();
        int axis = n.attr_as<ir::axis_attr>().axis;
        axis += axis < 0 ? rank : 0;
        if (axis < 0 || axis >= rank)
        {
            return status::invalid("concatenate/stack: bad axis");
        }
        return std::unique_ptr<kernel>(new concatenate_kernel(axis, stack, ctx.pool));
    }
} // namespace specula::backends::cpu
