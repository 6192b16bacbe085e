#pragma once

// The walk of a reduction over a C-contiguous input in NumPy's order, shared
// by the CPU backend's reduction kernels. Size-1 dims are dropped and
// adjacent dims reduced (or kept) alike are merged, which never changes the
// order NumPy visits elements in. Each output element then folds its elements
// as `runs`: the leading reduced groups in C order, each holding one
// contiguous run (the trailing reduced group, which NumPy hands to one
// inner-loop call and sums pairwise), or single elements when the input's
// last group is kept. Outputs are independent, so lanes may split them.

#include "backends/reference/strided.hpp"

#include <cstdint>
#include <vector>

namespace specula::backends::cpu
{
    struct reduce_plan
    {
        int num_kept = 0;
        reference::dims kept_size{};
        reference::dims kept_stride{}; // in elements
        int num_reduced = 0;           // groups before the trailing run
        reference::dims reduced_size{};
        reference::dims reduced_stride{};
        std::int64_t run = 1;     // trailing contiguous run (1: the last group is kept)
        std::int64_t count = 1;   // elements folded into each output
        std::int64_t outputs = 1; // output elements (C order of the kept dims)
    };

    // `reduced[d]`: input dim d is reduced.
    reduce_plan plan_reduction(const std::vector<std::int64_t>& shape,
                               const std::vector<bool>& reduced);

    // Element offset of output o's first element.
    inline std::int64_t output_base(const reduce_plan& p, std::int64_t o)
    {
        std::int64_t base = 0;
        for (int k = p.num_kept - 1; k >= 0; --k)
        {
            const std::int64_t i = o % p.kept_size[k];
            o /= p.kept_size[k];
            base += i * p.kept_stride[k];
        }
        return base;
    }

    // Calls f(offset) for the start of each run of the output at `base`, in
    // NumPy's order.
    template <class F>
    void for_each_run(const reduce_plan& p, std::int64_t base, F&& f)
    {
        if (p.count == 0)
        {
            return;
        }
        if (p.num_reduced == 0)
        {
            f(base);
            return;
        }
        reference::dims idx{};
        std::int64_t offset = base;
        for (;;)
        {
            f(offset);
            int d = p.num_reduced - 1;
            for (; d >= 0; --d)
            {
                offset += p.reduced_stride[d];
                if (++idx[d] < p.reduced_size[d])
                {
                    break;
                }
                offset -= p.reduced_stride[d] * p.reduced_size[d];
                idx[d] = 0;
            }
            if (d < 0)
            {
                return;
            }
        }
    }
} // namespace specula::backends::cpu
