#include "backends/cpu/reduce_plan.hpp"

#include <array>

namespace specula::backends::cpu
{
    reduce_plan plan_reduction(const std::vector<std::int64_t>& shape,
                               const std::vector<bool>& reduced)
    {
        // Merged groups, innermost first: size, innermost stride, reduced.
        // A fixed array (ranks are at most max_rank): reductions run per
        // call, and the hot path allocates nothing.
        struct group
        {
            std::int64_t size;
            std::int64_t stride;
            bool reduced;
        };
        std::array<group, reference::max_rank> groups{};
        int num_groups = 0;
        std::int64_t stride = 1;
        for (auto d = static_cast<int>(shape.size()) - 1; d >= 0; --d)
        {
            const std::int64_t size = shape[static_cast<std::size_t>(d)];
            const bool r = reduced[static_cast<std::size_t>(d)];
            if (size != 1)
            {
                if (num_groups > 0 && groups[num_groups - 1].reduced == r)
                {
                    groups[num_groups - 1].size *= size; // the outer dim joins the group
                }
                else
                {
                    groups[num_groups++] = {size, stride, r};
                }
            }
            stride *= size;
        }
        reduce_plan p;
        int first = 0;
        if (num_groups > 0 && groups[0].reduced)
        {
            p.run = groups[0].size;
            p.count = p.run;
            first = 1;
        }
        for (int k = num_groups - 1; k >= first; --k)
        {
            const group& g = groups[static_cast<std::size_t>(k)];
            if (g.reduced)
            {
                p.reduced_size[p.num_reduced] = g.size;
                p.reduced_stride[p.num_reduced++] = g.stride;
                p.count *= g.size;
            }
            else
            {
                p.kept_size[p.num_kept] = g.size;
                p.kept_stride[p.num_kept++] = g.stride;
                p.outputs *= g.size;
            }
        }
        return p;
    }
} // namespace specula::backends::cpu
