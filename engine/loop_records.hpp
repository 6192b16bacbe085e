// A loop region's record, made once per loop id from specula.cell_loops'
// description of the loop: its name and place, kind ("loop", "cell" or
// "function_loop"), body, the names it mentions and binds, its targets and,
// for chunks, a tuple target's parts and a `while` test.
#pragma once

namespace specula::engine
{
    class region;
    struct region_record;

    namespace loop_records
    {
        // Adopted by engine_core's registry (the pointer stays valid). Runs
        // Python (the description): throws py::error_already_set with its
        // error, or std::runtime_error for a function loop without a frame.
        region_record* describe(long id);

        // A cell is a region when it runs again: even at threshold 0 its
        // first run is CPython's.
        void hold_first_run(region& r);
    } // namespace loop_records
} // namespace specula::engine
