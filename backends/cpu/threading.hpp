#pragma once

// One thread budget for the process. Specula's pool, oneDNN's OpenMP team and
// OpenBLAS all size themselves from it, and since the executor runs one op at
// a time only one of them runs a parallel region at any moment.

namespace specula::backends::cpu
{
    // Cores the process may use: SPECULA_NUM_THREADS if set, else the CPUs in
    // its affinity mask (2 on the project's machines).
    int thread_budget();

    // Threads of oneDNN's OpenMP team: SPECULA_ONEDNN_THREADS if set, else 1
    // (the calling thread only). OpenMP's team busy-waits at its barriers, and
    // next to OpenBLAS's spinning threads or any other load on the 2 cores that
    // made relu(A@W+b) 256x512x512 run 15-20x slower (22 ms instead of 1.4 ms
    // measured here); one thread cannot oversubscribe and still beats NumPy.
    int onednn_threads();

    // Elements below which an elementwise op or group stays on one lane:
    // waking a worker costs a few microseconds, about 16K elements of work.
    inline constexpr long parallel_min_elements = 1L << 15;
} // namespace specula::backends::cpu
