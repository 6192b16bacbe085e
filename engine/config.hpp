// Engine settings from the environment. Python-free so it is unit-tested.
#pragma once

#include <cstdint>
#include <string>

namespace specula::engine
{
    struct dump_flags
    {
        bool ir = false;
        bool guards = false;
        bool exits = false;
        bool cache = false;
        bool backends = false; // nodes the CPU backend left to the reference backend
    };

    // The numerics policy (DESIGN.md): `fast` lets float32 graphs run on
    // kernels that reassociate (oneDNN) within the documented tolerance;
    // `exact` asks for NumPy's bits for float32 too. float64, integer and bool
    // results are bit-identical in both modes.
    enum class numerics_mode
    {
        fast,
        exact,
    };

    const char* numerics_name(numerics_mode m);
    // "fast" or "exact" (any case); false leaves `out` untouched.
    bool parse_numerics(const char* text, numerics_mode& out);

    struct config
    {
        bool enabled = true;             // SPECULA_ENGINE=off|0|false|no turns it off
        std::int64_t threshold = 2;      // SPECULA_THRESHOLD: cold calls before profiling
        int profiling_calls = 3;         // JANUS's three profiling runs
        int max_specialisations = 8;     // per region, most recently used first
        int max_recompiles = 32;         // past this the region is blacklisted
        int assert_failures_to_drop = 3; // per specialisation and exit
        int dropped_specs_to_blacklist = 4;
        int max_unrolled_statements = 4096;
        dump_flags dump;                              // SPECULA_DUMP=ir,guards,exits,cache,backends
        numerics_mode numerics = numerics_mode::fast; // SPECULA_NUMERICS=fast|exact
        // Cheap when cold (frame_hook.hpp, park_policy): the hook steps aside
        // after this many calls in which nothing it counts or runs was called,
        // and comes back every `rearm_ms` (SPECULA_REARM_MS; measurements under
        // valgrind scale it with the slowdown). Threshold 0 never parks.
        std::int64_t park_window = 8192;
        std::int64_t rearm_ms = 50;
        // The cost check (SPECULA_COST_CHECK=off disables it), per
        // specialisation (engine/cost_verdict.hpp): after `cost_check_runs`
        // timed graph runs and `cost_samples` CPython calls of the same
        // situation (and again at the re-checks, cost_verdict.hpp), a
        // specialisation whose median graph call is not below `cost_margin` x
        // its median CPython call runs CPython from then on.
        // A graph whose median is above that but below `cost_clear_ratio` x
        // CPython's is too close to call on a few samples: the check takes
        // more (up to `cost_max_samples`) before it sends the graph back.
        // Calls under `cost_floor_s` are not judged: there the clock's noise
        // and the hook's own overhead are as large as the difference, and the
        // loss is tiny.
        bool cost_check = true;
        int cost_check_runs = 5;
        int cost_samples = 3;
        int cost_max_samples = 9;
        double cost_margin = 0.95;
        double cost_clear_ratio = 1.25;
        double cost_floor_s = 50e-6;

        // Profiling calls after the cold ones: threshold 0 means "as early as
        // possible", so the first call is observed and compiled at once.
        int effective_profiling_calls() const { return threshold == 0 ? 1 : profiling_calls; }
    };

    // Parses the variables; a value that cannot be parsed keeps the default.
    // Null pointers mean "unset".
    config parse_config(const char* engine, const char* threshold, const char* dump,
                        const char* cost_check = nullptr, const char* numerics = nullptr);
    config config_from_environment();
} // namespace specula::engine
