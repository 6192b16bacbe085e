// Per-code-object state: the life cycle of DESIGN.md ("Regions and their life"),
// counters for the report, and the penalty policy (LuaJIT style) that turns
// repeated failures into dropped specialisations and, past a limit, a blacklist.
// Python-free: the specialisations themselves are opaque here.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "engine/config.hpp"
#include "engine/cost_verdict.hpp"
#include "engine/hook_slot.hpp"
#include "engine/mru_list.hpp"

namespace specula::engine
{
    struct specialisation; // engine/specialisation.hpp

    enum class region_state
    {
        cold,
        profiling,
        compiled,
        not_convertible,
        blacklisted,
    };

    const char* state_name(region_state s);

    struct region_counters
    {
        std::int64_t graph_runs = 0;
        std::int64_t fallbacks = 0;
        std::int64_t guard_misses = 0;
        std::int64_t assert_failures = 0;
        std::int64_t compiles = 0;
        std::int64_t profiled_calls = 0;
        std::int64_t dropped_specialisations = 0;
        // In-place updates a graph run wrote straight into the user's array
        // (engine/sunk_stores.hpp) instead of copying at commit.
        std::int64_t sunk_stores = 0;
        // Calls the cost verdict sent to CPython because there the graph was
        // slower: a choice, not a failure, so not among the fallbacks.
        std::int64_t cost_cpython_calls = 0;
    };

    // Wall-clock time of the region's calls, for the report.
    struct region_timing
    {
        double cpython_s = 0.0; // total of the timed CPython calls
        std::int64_t cpython_calls = 0;
        double graph_s = 0.0; // total of the graph calls (guards to return)
        std::int64_t graph_calls = 0;
        double compile_s = 0.0; // conversion and backend compilation, failed ones too
    };

    class region
    {
    public:
        region(std::string name, std::string file, int line, const config& cfg);
        region(const region&) = delete;
        region& operator=(const region&) = delete;

        // What the frame hook reads on every call (countdown to the engine).
        hook_slot m_slot;

        const std::string& name() const { return m_name; }
        const std::string& file() const { return m_file; }
        int line() const { return m_line; }
        region_state state() const { return m_state; }
        const std::optional<std::string>& reason() const { return m_reason; }
        const region_counters& counters() const { return m_counters; }
        bool ever_hot() const { return m_ever_hot; }
        bool code_alive() const { return m_code_alive; }
        void mark_code_dead() { m_code_alive = false; }

        // Forgets everything learnt (state, reason, counters, timing,
        // specialisations): the region is cold again under `cfg`.
        void reset(const config& cfg);
        const config& settings() const { return m_config; }

        // cold -> profiling; returns true when enough calls were observed.
        bool observe_profiling_call();
        void mark_compiled();
        void mark_not_convertible(std::string reason);
        void blacklist(std::string reason);
        // Every specialisation lost its cost verdict: CPython for good. The
        // specialisations stay (graph-less) so the report can say which lost.
        void blacklist_keeping_specialisations(std::string reason);

        // A call whose guards all failed. Returns false (and blacklists) when
        // the region recompiled too often to be worth another attempt.
        bool record_guard_miss(std::string explanation);
        void record_compile() { ++m_counters.compiles; }
        void record_compile_time(double seconds) { m_timing.compile_s += seconds; }
        void record_graph_run(std::int64_t sunk_stores = 0)
        {
            ++m_counters.graph_runs;
            m_counters.sunk_stores += sunk_stores;
        }
        void record_fallback(std::string why);
        void record_cost_cpython_call(std::string why);
        // An in-graph assert fired; `failures_of_exit` counts that exit on the
        // specialisation that ran. Returns true when that specialisation must go.
        bool record_assert_failure(const std::string& why, std::int64_t failures_of_exit);
        // An engine bug or backend failure: never retried.
        void record_internal_error(const std::string& what);

        const region_timing& timing() const { return m_timing; }
        // A call that CPython evaluated after the engine saw it. When it was
        // a call the engine sent to CPython on behalf of a specialisation
        // (expect_cpython_time), the time is that specialisation's too.
        void record_cpython_time(double seconds);
        // The next CPython time recorded belongs to `cost` (null: to no
        // specialisation), a call of `units` units of work (spec_cost::unit).
        // Set on every entry, so a sample that never arrives (a loop that
        // ended) is not given to a later call.
        void expect_cpython_time(const std::shared_ptr<spec_cost>& cost, double units = 1.0)
        {
            if (m_expecting)
            {
                sample_lost();
            }
            m_expected = cost;
            m_expecting = cost != nullptr;
            m_expected_units = units;
            m_expected_work = engine_work();
        }
        // A graph call of the specialisation owning `cost` completed, `units`
        // units of work. Returns true when its cost verdict went to CPython
        // just now.
        bool record_graph_time(spec_cost& cost, double seconds, double units = 1.0);

        mru_list<std::shared_ptr<specialisation>>& specialisations() { return m_specs; }
        const mru_list<std::shared_ptr<specialisation>>& specialisations() const { return m_specs; }

    private:
        void set_terminal(region_state s, std::string reason, bool keep_specialisations = false);
        // The expected CPython time never came: counted on its specialisation.
        void sample_lost();

        std::string m_name;
        std::string m_file;
        int m_line;
        config m_config;
        region_state m_state = region_state::cold;
        std::optional<std::string> m_reason;
        region_counters m_counters;
        region_timing m_timing;
        std::weak_ptr<spec_cost> m_expected;
        bool m_expecting = false; // m_expected was set and not consumed yet
        double m_expected_units = 1.0;
        std::uint64_t m_expected_work = 0; // engine_work() when it was set
        bool m_ever_hot = false;
        bool m_code_alive = true;
        mru_list<std::shared_ptr<specialisation>> m_specs;
    };
} // namespace specula::engine
