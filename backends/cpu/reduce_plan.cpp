#include "backends/cpu/reduce_plan.hpp"

namespace specula::backends::cpu
{
    reduce_plan plan_reduction(const std::vector<std::int64_t>& shape,
                               const std::vector<bool>& reduced)
    {
        // Merged groups, outermost first: size, innermost stride, reduced.
        struct group
        {
            std::int64_t size;
            std::int64_t stride;
            bool reduced;
        };
        std::vector<group> groups;
        std::int64_t stride = 1;
        for (auto d = static_cast<int>(shape.size()) - 1; d >= 0; --d)
        {
            const std::int64_t size = shape[static_cast<std::size_t>(d)];
            const bool r = reduced[static_cast<std::size_t>(d)];
            if (size != 1)
            {
                if (!groups.empty() && groups.back().reduced == r)
                {
                    groups.back().size *= size; // the outer dim joins the group
                }
                else
                {
                    groups.push_back({size, stride, r});
                }
            }
            stride *= size;
        }
        reduce_plan p;
        if (!groups.empty() && groups.front().reduced)
        {
            p.run = groups.front().size; // groups are innermost first here
            p.count = p.run;
            groups.erase(groups.begin());
        }
        for (auto g = groups.rbegin(); g != groups.rend(); ++g)
        {
            if (g->reduced)
            {
                p.reduced_size[p.num_reduced] = g->size;
                p.reduced_stride[p.num_reduced++] = g->stride;
                p.count *= g->size;
            }
            else
            {
                p.kept_size[p.num_kept] = g->size;
                p.kept_stride[p.num_kept++] = g->stride;
                p.outputs *= g->size;
            }
        }
        return p;
    }
} // namespace specula::backends::cpu
