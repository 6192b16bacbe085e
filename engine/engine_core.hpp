// The engine's process-wide state: configuration, the whitelist, the region
// registry, the frame hook's callbacks and the state machine each call goes
// through. One instance per copy of the engine library (the kernel has one,
// the `specula._engine` extension another; the kernel's `import specula`
// reaches the kernel's own through `_specula_engine`).
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "engine/config.hpp"
#include "engine/frame_hook.hpp"
#include "engine/loop_chunks.hpp"
#include "engine/profiler.hpp"
#include "engine/region.hpp"
#include "engine/whitelist.hpp"

namespace specula::engine
{
    namespace py = pybind11;

    // A region plus what only the Python side needs about it.
    struct region_record
    {
        std::unique_ptr<region> r;
        profile prof;
        // Its specialisations were dropped by a numerics change: the next
        // call recompiles without counting a guard miss.
        bool recompile_pending = false;
        // This call's CPython run is a profiling run traced for branch
        // outcomes and trip counts (branch_tracer.hpp), until ran_default().
        bool tracing = false;
        const char* kind = "function"; // the report's `kind`
        // Loops in cells (engine/loop_region.cpp): the body's statements and
        // every name they mention; null for functions.
        py::object cell_body;
        std::vector<std::string> cell_names;
        // A loop inside a function (on-stack replacement): every name its
        // body mentions, the function's locals among them (the frame view's
        // `locals`, in this order), the names the body binds; `cell_names`
        // then holds the globals.
        bool function_loop = false;
        std::vector<std::string> loop_names;
        std::vector<std::string> loop_locals;
        std::vector<std::string> loop_bound;
        // The paths of a `for` loop's target names (its counter): they change
        // every iteration, so profiling relaxes them at once.
        std::vector<std::string> loop_targets;
        // A `for` loop over a range run in chunks (loop_chunks.hpp).
        loop_chunk_record chunk;
        // Tests: timings given to the specialisations whose situation
        // (situation_of) contains `match`, now and when compiled later.
        struct cost_injection
        {
            std::string match;
            double graph_s = 0.0;
            double cpython_s = 0.0;
        };
        std::vector<cost_injection> cost_injections;
    };

    class engine_core
    {
    public:
        static engine_core& instance();

        const config& settings() const { return m_config; }
        const whitelist& whitelist_table() const { return m_whitelist; }
        // Installs the frame hook (requires the GIL). Returns false with a
        // Python exception set on failure. A no-op when SPECULA_ENGINE=off
        // unless `force`.
        bool enable(bool force = false);
        void disable();
        bool enabled() const { return m_enabled; }
        // A notebook cell starts: a parked hook comes back, so the functions
        // the cell calls are counted from their first call.
        void cell_starts();
        // "off", "waiting for numpy", "active" or "parked" (tests, explain).
        const char* hook_state() const;
        py::list report() const;
        // Tests: forget every region's compiled state (code objects keep their
        // slots, counting restarts).
        void set_threshold(std::int64_t threshold) { m_config.threshold = threshold; }
        // Forgets every region, specialisation and counter: the report is
        // empty and every function is cold again.
        void reset();
        // The region `name` (qualified or plain function name) or, with an
        // empty name, the function of `file` defined last at or above `line`.
        // Prefers code that is still alive, then the latest seen. Null when
        // nothing matches.
        const region_record* find(const std::string& name, const std::string& file, int line) const;
        // Switches the numerics mode; drops the specialisations whose kernels
        // depend on it (they recompile on their next call). Returns how many
        // were dropped.
        std::size_t set_numerics(numerics_mode mode);
        // Tests: every specialisation of the regions named `name` whose
        // situation contains `match` records these times instead of the
        // clock's (makes a cost verdict deterministic). Returns how many
        // regions it applies to.
        std::size_t inject_cost(const std::string& name, const std::string& match, double graph_s,
                                double cpython_s);

        // Regions entered from outside the frame hook (loops in cells): the
        // registry owns the record, the caller keeps the returned pointer.
        region_record& adopt(std::unique_ptr<region_record> rec);
        // One entry of a region whose countdown ran out: the same state
        // machine as a function call. `frame.code`, `frame.locals` and
        // `frame.function` are null for loops in cells.
        frame_hook::frame_exit enter_region(region_record& rec, const frame_hook::frame_view& frame,
                                            PyObject** result);

        // Whether the program itself imported NumPy. Until it does, regions
        // run in CPython (loops without entries): the engine never imports NumPy on its own, since
        // that is a visible effect (`sys.modules`) and ~0.1 s of start-up.
        static bool program_uses_numpy();

    private:
        engine_core();
        // Installs the frame hook now; false with a Python exception set.
        bool install_hook();
        // NumPy's C API and the whitelist, on the engine's first real work.
        // On failure the engine turns itself off (no speculation without NumPy).
        bool load();
        void collect_library_prefixes();
        void watch_numpy_import();
        static void numpy_imported();
        static hook_slot* classify(PyCodeObject* code);
        static frame_hook::frame_exit enter(hook_slot* slot, const frame_hook::frame_view& frame,
                                            PyObject** result);
        static void release(hook_slot* slot);
        static void ran_default(hook_slot* slot, double seconds);

        bool is_library(const std::string& file) const;
        frame_hook::frame_exit on_enter(region_record& rec, const frame_hook::frame_view& frame,
                                        PyObject** result);
        frame_hook::frame_exit run_compiled(region_record& rec, const frame_hook::frame_view& frame,
                                            PyObject** result);
        // `spec` (a specialisation of `rec`) lost its cost verdict.
        void graph_lost(region_record& rec, specialisation& spec);
        frame_hook::frame_exit compile_and_run(region_record& rec,
                                               const frame_hook::frame_view& frame,
                                               PyObject** result, bool first);

        config m_config;
        whitelist m_whitelist;
        bool m_loaded = false;
        bool m_enabled = false;
        bool m_hook_wanted = false; // enabled, waiting for NumPy to be imported
        bool m_watcher_added = false;
        std::vector<std::string> m_library_prefixes;
        std::vector<std::unique_ptr<region_record>> m_records;
    };
} // namespace specula::engine
