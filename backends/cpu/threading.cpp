#include "backends/cpu/threading.hpp"

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

} // namespace specula::backends::cpu
