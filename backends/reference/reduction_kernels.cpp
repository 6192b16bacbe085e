// Reductions and linear algebra IR ops onto the reference kernels.

#include "backends/reference/linalg.hpp"
#include "backends/reference/reduce.hpp"
#include "backends/reference/reference_backend.hpp"
#include "backends/reference/view.hpp"

namespace specula::backends::reference
{
    namespace
    {
        std::optional<reduce_op> reduce_of(ir::op code)
        {
            switch (code)
            {
            case ir::op::SUM:
                return reduce_op::sum;
            case ir::op::PROD:
                return reduce_op::prod;
            case ir::op::MEAN:
                return reduce_op::mean;
            case ir::op::VAR:
                return reduce_op::var;
            case ir::op::STD:
                return reduce_op::std;
            case ir::op::MAX:
                return reduce_op::max;
            case ir::op::MIN:
                return reduce_op::min;
            case ir::op::ARGMAX:
                return reduce_op::argmax;
            case ir::op::ARGMIN:
                return reduce_op::argmin;
            case ir::op::ANY:
                return reduce_op::any;
            case ir::op::ALL:
                return reduce_op::all;
            default:
                return std::nullopt;
            }
        }

        result<std::uint32_t> axes_mask(const ir::reduce_attr& attr, int rank)
        {
            if (attr.all_axes)
            {
                return rank >= 32 ? ~0U : (1U << rank) - 1U;
            }
            std::uint32_t mask = 0;
            for (int axis : attr.axes)
            {
                const int a = axis < 0 ? axis + rank : axis;
                if (a < 0 || a >= rank)
                {
                    return status::invalid("reduction axis out of range");
                }
                mask |= 1U << a;
            }
            return mask;
        }
    } // namespace

    result<std::unique_ptr<kernel>> make_reduction_kernel(const ir::graph& g, const ir::node& n)
    {
        if (auto r = reduce_of(n.code))
        {
            const auto& attr = n.attr_as<ir::reduce_attr>();
            auto mask = axes_mask(attr, g.type_of(n.inputs[0]).dims.rank());
            if (!mask)
            {
                return mask.error();
            }
            const reduce_spec spec{*r, mask.value(), attr.ddof};
            return make_kernel([spec](const kernel_io& io)
                               { return run_reduce(spec, view_of(io.in(0)), view_of(io.out(0))); });
        }
        switch (n.code)
        {
        case ir::op::MATMUL:
            return make_kernel(
                [](const kernel_io& io)
                { return run_matmul(view_of(io.in(0)), view_of(io.in(1)), view_of(io.out(0))); });
        case ir::op::DOT:
            return make_kernel(
                [](const kernel_io& io)
                { return run_dot(view_of(io.in(0)), view_of(io.in(1)), view_of(io.out(0))); });
        case ir::op::OUTER:
            return make_kernel(
                [](const kernel_io& io)
                { return run_outer(view_of(io.in(0)), view_of(io.in(1)), view_of(io.out(0))); });
        default:
            return status::unimplemented("not a reduction");
        }
    }
} // namespace specula::backends::reference
