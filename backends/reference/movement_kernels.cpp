// Movement and indexing IR ops onto the reference kernels.

#include "backends/reference/elementwise.hpp"
#include "backends/reference/indexing.hpp"
#include "backends/reference/movement.hpp"
#include "backends/reference/reference_backend.hpp"
#include "backends/reference/view.hpp"
#include "ir/slice.hpp"

#include <vector>

namespace specula::backends::reference
{
    namespace
    {
        int normalized(int axis, int rank)
        {
            return axis < 0 ? axis + rank : axis;
        }

        // The IR's slice items against the run-time sizes of x.
        status slice_of(const std::vector<ir::slice_item>& items, const buffer& x,
                        strided_view& out)
        {
            std::vector<slice_pick> picks;
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
                if (axis >= x.rank())
                {
                    return status::invalid("too many indices");
                }
                const auto r =
                    ir::normalize_slice(item, x.shape()[static_cast<std::size_t>(axis++)]);
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
            if (!slice_view(view_of(x), picks.data(), static_cast<int>(picks.size()), out))
            {
                return status::invalid("slice does not fit the array");
            }
            return status::ok();
        }

        kernel_fn slice_kernel(std::vector<ir::slice_item> items)
        {
            return [items = std::move(items)](const kernel_io& io)
            {
                strided_view v;
                status st = slice_of(items, io.in(0), v);
                return st ? run_cast(v, view_of(io.out(0))) : st;
            };
        }

        kernel_fn slice_update_kernel(std::vector<ir::slice_item> items)
        {
            return [items = std::move(items)](const kernel_io& io)
            {
                status st = run_cast(view_of(io.in(0)), view_of(io.out(0)));
                strided_view target;
                if (st)
                {
                    st = slice_of(items, io.out(0), target);
                }
                return st ? run_cast(view_of(io.in(1)), target) : st;
            };
        }

        template <class F>
        kernel_fn many_inputs(int axis, F run)
        {
            return [axis, run](const kernel_io& io)
            {
                std::vector<strided_view> views;
                for (int i = 0; i < io.num_inputs; ++i)
                {
                    views.push_back(view_of(io.in(i)));
                }
                return run(views.data(), io.num_inputs, axis, view_of(io.out(0)));
            };
        }

        // x[mask]: the output's leading extent is only known from the data.
        status mask_select(const kernel_io& io)
        {
            const buffer& x = io.in(0);
            const strided_view mask = view_of(io.in(1));
            std::vector<std::int64_t> shape{count_true(mask)};
            for (int d = mask.rank; d < x.rank(); ++d)
            {
                shape.push_back(x.shape()[static_cast<std::size_t>(d)]);
            }
            auto out = buffer::allocate(x.dtype(), std::move(shape));
            if (!out)
            {
                return out.error();
            }
            io.out(0) = std::move(out.value());
            return run_mask_select(view_of(x), mask, view_of(io.out(0)));
        }
    } // namespace

    result<std::unique_ptr<kernel>> make_movement_kernel(const ir::graph& g, const ir::node& n)
    {
        const int in_rank = n.inputs.empty() ? 0 : g.type_of(n.inputs[0]).dims.rank();
        const int out_rank = n.outputs.empty() ? 0 : g.type_of(n.outputs[0]).dims.rank();
        switch (n.code)
        {
        case ir::op::RESHAPE:
        case ir::op::EXPAND_DIMS:
        case ir::op::SQUEEZE:
            return make_kernel([](const kernel_io& io)
                               { return run_copy_flat(view_of(io.in(0)), view_of(io.out(0))); });
        case ir::op::BROADCAST_TO:
            return make_kernel([](const kernel_io& io)
                               { return run_cast(view_of(io.in(0)), view_of(io.out(0))); });
        case ir::op::TRANSPOSE:
            return make_kernel(
                [perm = n.attr_as<ir::perm_attr>().perm](const kernel_io& io)
                {
                    strided_view v;
                    if (!transpose_view(view_of(io.in(0)), perm.data(),
                                        static_cast<int>(perm.size()), v))
                    {
                        return status::invalid("bad permutation");
                    }
                    return run_cast(v, view_of(io.out(0)));
                });
        case ir::op::CONCATENATE:
            return make_kernel(
                many_inputs(normalized(n.attr_as<ir::axis_attr>().axis, in_rank), run_concatenate));
        case ir::op::STACK:
            return make_kernel(
                many_inputs(normalized(n.attr_as<ir::axis_attr>().axis, out_rank), run_stack));
        case ir::op::SLICE:
            return make_kernel(slice_kernel(n.attr_as<ir::slice_attr>().items));
        case ir::op::SLICE_UPDATE:
            return make_kernel(slice_update_kernel(n.attr_as<ir::slice_attr>().items));
        case ir::op::GATHER:
            return make_kernel(
                [axis = normalized(n.attr_as<ir::axis_attr>().axis, in_rank)](const kernel_io& io) {
                    return run_take(view_of(io.in(0)), view_of(io.in(1)), axis, view_of(io.out(0)));
                });
        case ir::op::GATHER_UPDATE:
            return make_kernel(
                [axis = normalized(n.attr_as<ir::axis_attr>().axis, in_rank)](const kernel_io& io)
                {
                    return run_take_update(view_of(io.in(0)), view_of(io.in(1)), view_of(io.in(2)),
                                           axis, view_of(io.out(0)));
                });
        case ir::op::MASK_SELECT:
            return make_kernel(mask_select, true);
        case ir::op::MASK_UPDATE:
            return make_kernel(
                [](const kernel_io& io)
                {
                    return run_mask_update(view_of(io.in(0)), view_of(io.in(1)), view_of(io.in(2)),
                                           view_of(io.out(0)));
                });
        default:
            return status::unimplemented("not a movement op");
        }
    }
} // namespace specula::backends::reference
