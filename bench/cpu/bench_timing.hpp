#pragma once

// The one timing rule of the CPU benchmarks: one warm-up call, then the
// median of `reps` timed calls (medians, because the machine is shared).

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace specula::bench
{
    inline double median_seconds(const std::function<void()>& f, int reps)
    {
        std::vector<double> t;
        f();
        for (int i = 0; i < reps; ++i)
        {
            auto a = std::chrono::steady_clock::now();
            f();
            t.push_back(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    }
} // namespace specula::bench
