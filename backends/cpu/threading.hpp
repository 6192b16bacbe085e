#pragma once

// One thread budget for the process: at most thread_budget() threads compute.
// Specula's pool has that many lanes; oneDNN never starts an OpenMP team (each
// primitive runs single-threaded on the lane calling it, onednn_context.hpp);
// OpenBLAS keeps NumPy's thread count (it decides the bits of a product), and
// the executor runs one op at a time, so its workers and our lanes never
// compute at once. What is left, OpenBLAS's idle spinning after a call, is
// cut short by OPENBLAS_THREAD_TIMEOUT (engine/python/specula/__init__.py,
// the kernelspec). Measurements: backends/cpu/README.md, Threading.

namespace specula::backends::cpu
{
    // Cores the process may use: SPECULA_NUM_THREADS if set, else the CPUs in
    // its affinity mask (2 on the project's machines).
    int thread_budget();

    // Elements below which an elementwise op or group stays on one lane:
    // waking a worker costs a few microseconds, about 16K elements of work.
    inline constexpr long parallel_min_elements = 1L << 15;
} // namespace specula::backends::cpu
