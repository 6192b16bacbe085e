#include "backends/cpu/threading.hpp"

#include <algorithm>
#include <cstdlib>
#include <sched.h>

namespace specula::backends::cpu
{
    int thread_budget()
    {
        static const int budget = []
        {
            if (const char* env = std::getenv("SPECULA_NUM_THREADS"))
            {
                const int n = std::atoi(env);
                if (n > 0)
                {
                    return n;
                }
            }
            cpu_set_t set;
            if (sched_getaffinity(0, sizeof(set), &set) == 0)
            {
                const int n = CPU_COUNT(&set);
                return n > 0 ? n : 1;
            }
            return 1;
        }();
        return budget;
    }

    int onednn_threads()
    {
        static const int threads = []
        {
            const char* env = std::getenv("SPECULA_ONEDNN_THREADS");
            const int n = env != nullptr ? std::atoi(env) : 0;
            return n > 0 ? std::min(n, thread_budget()) : 1;
        }();
        return threads;
    }
} // namespace specula::backends::cpu
