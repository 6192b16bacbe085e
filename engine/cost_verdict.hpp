// Per-specialisation cost verdicts: each specialisation weighs its own graph
// calls against CPython calls of its own situation (calls that matched its
// guards but ran in CPython), so a slow graph in one situation cannot hide
// behind a fast one in another. Python-free (unit-tested).
#pragma once

#include <array>
#include <iterator>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/config.hpp"

namespace specula::engine
{
    // Timed calls of one kind: count, fastest, total, and the latest few for
    // a median (the report's time saved). Adding one is a store and two
    // compares: it runs on the hot path.
    class call_samples
    {
    public:
        static constexpr std::size_t kept = 31;

        void add(double seconds)
        {
            if (m_count == 0 || seconds < m_min_s)
            {
                m_min_s = seconds;
            }
            m_recent[static_cast<std::size_t>(m_count) % kept] = seconds;
            m_total_s += seconds;
            ++m_count;
        }
        std::int64_t count() const { return m_count; }
        double min_s() const { return m_min_s; }
        double total_s() const { return m_total_s; }
        // Median of the latest `kept` calls; nullopt without any call.
        std::optional<double> median_s() const;

    private:
        std::int64_t m_count = 0;
        double m_min_s = 0.0;
        double m_total_s = 0.0;
        std::array<double, kept> m_recent{};
    };

    enum class cost_verdict
    {
        undecided,
        graph,   // the graph runs (faster, or too short to judge)
        cpython, // the graph lost: calls in this situation run in CPython
    };

    const char* verdict_name(cost_verdict v);

    // When a specialisation's cost is checked, in its own graph calls: the
    // first check after `config::cost_check_runs`, then re-checks of a graph
    // verdict at these counts (a few CPython samples each, interleaved with
    // graph calls), so a graph that is slower in the long run still ends in
    // CPython. A CPython verdict is final (its executable is freed).
    inline constexpr std::int64_t cost_rechecks[] = {50, 500};
    inline constexpr int num_cost_checks = 1 + static_cast<int>(std::size(cost_rechecks));

    struct spec_cost
    {
        cost_verdict verdict = cost_verdict::undecided;
        call_samples graph;   // completed graph calls, guards to return value
        call_samples cpython; // CPython calls that matched the guards
        std::string reason;   // why CPython won, for the report
        // Checks taken so far (num_cost_checks: no more).
        int checks = 0;
        // graph.count() when the latest CPython sample arrived: samples
        // alternate with graph calls, and the first one waits for the second
        // graph call (the first pays for the executable's first allocations).
        std::int64_t graph_at_last_sample = 1;
        // CPython samples asked for that never arrived (the last iteration
        // of a loop run: nothing marks its end). Past `cost_samples` of them
        // in one check, the check is taken on the samples there are.
        std::int64_t lost_samples = 0;
        std::int64_t lost_before_check = 0;
        // Tests: the times to record instead of the clock's, so a verdict is
        // deterministic (engine_core::inject_cost).
        std::optional<double> injected_graph_s;
        std::optional<double> injected_cpython_s;

        // The graph call count at which the current check is due.
        std::int64_t check_due(const config& cfg) const
        {
            return checks == 0 ? cfg.cost_check_runs
                               : cost_rechecks[static_cast<std::size_t>(checks - 1)];
        }

        // Hot: the next call matching the guards should run in CPython to be
        // timed: a check is due (or, for the first, under way), its samples
        // are not all in, and a graph call ran since the last sample (both
        // kinds see the same warm caches); graph calls under the floor need
        // none.
        bool wants_cpython_sample(const config& cfg) const
        {
            return cfg.cost_check && verdict != cost_verdict::cpython &&
                   checks < num_cost_checks &&
                   cpython.count() < static_cast<std::int64_t>(cfg.cost_samples) * (checks + 1) &&
                   lost_samples - lost_before_check < cfg.cost_samples &&
                   graph.count() > graph_at_last_sample &&
                   (checks == 0 || graph.count() >= check_due(cfg)) &&
                   graph.min_s() >= cfg.cost_floor_s;
        }

        // Estimated seconds the graph calls saved against CPython in this
        // situation: graph calls x (median CPython - median graph).
        // nullopt while either median is unknown.
        std::optional<double> time_saved_s() const;
    };

    // After a graph call: takes the verdict when a check is due and its
    // samples are in, on the medians of the latest calls of each kind (the
    // CPython samples are interleaved with graph calls, so both saw the
    // machine in the same state; a median shrugs off the odd slow call that
    // a minimum of a few samples cannot). Returns true when CPython won just
    // now (`c.reason` says by how much).
    bool judge(spec_cost& c, const config& cfg);
} // namespace specula::engine
