#pragma once

// One thread budget for the process. Specula's pool, oneDNN's OpenMP team and
// OpenBLAS all size themselves from it, and since the executor runs one op at
// a time only one of them runs a parallel region at any moment.

namespace specula::backends::cpu
{
    // Cores the process may use: SPECULA_NUM_THREADS if set, else the CPUs in
    // its affinity mask (2 on the project's machines).
    int thread_budget();

    // Elements below which an elementwise op or group stays on one lane:
    // waking a worker costs a few microseconds, about 16K elements of work.
    inline constexpr long parallel_min_elements = 1L << 15;
} // namespace specula::backends::cpu
