// The per-code-object word the frame hook reads on every call. It lives in a
// region, so the hook needs no C++ knowledge of regions.
#pragma once

#include <cstdint>

namespace specula::engine
{
    struct hook_slot
    {
        // Calls the hook still answers alone (run default). Below zero, every
        // call goes to the engine. Terminal states set it very high.
        std::int64_t countdown = 0;
        // The engine's record for this code object (opaque to the hook).
        void* owner = nullptr;
        // CPython runs of this code in progress: a recursive call inside one
        // is part of that run (never profiled, compiled or timed on its own).
        std::int32_t cpython_runs = 0;
    };

    inline constexpr std::int64_t never_again = INT64_MAX / 2;
} // namespace specula::engine
