// Loops at a notebook cell's module level as engine regions. The kernel's AST
// transformer (python/specula/cell_loops.py) starts every iteration with
// `if __specula_loop__(id): ...` (while the region is live); the engine answers True when it ran
// the iteration as a graph (all of its effects committed), False when CPython runs the body as
// written. The region goes through the same state machine as a function
// (engine_core::enter_region), converted in cell mode.
#pragma once

#include <pybind11/pybind11.h>

#include "engine/config.hpp"
#include "engine/frame_hook.hpp"

namespace specula::engine
{
    struct region_record;

    namespace loop_region
    {
        // Puts `__specula_loop_live__`, `__specula_loop__`,
        // `__specula_loop_broke__` and `__specula_loops__` (= `flags`, one
        // bool per loop id, kept by specula.cell_loops) into builtins
        // (requires the GIL). Throws py::error_already_set on failure.
        void install_builtins(pybind11::list flags);
        // The settings of a loop region: the engine's, cost-checked without
        // a floor.
        config loop_config(const config& engine_settings);
        // After engine_core::reset(): every loop enters the engine again.
        void reset_all();
    } // namespace loop_region

    // Profiling of a loop iteration: the globals its body mentions, under the
    // paths the converter reads them from.
    void observe_cell_globals(region_record& rec, const frame_hook::frame_view& frame);
} // namespace specula::engine
