// Per-specialisation cost verdicts: each specialisation weighs its own graph
// calls against CPython calls of its own situation (calls that matched its
// guards but ran in CPython), so a slow graph in one situation cannot hide
// behind a fast one in another. Python-free (unit-tested).
#pragma once

#include <array>
#include <cstdint>
#include <iterator>
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
        // Median of the latest `kept` calls, only those from call number
        // `since` on (a new trial of a graph is judged on its own calls);
        // nullopt without any such call.
        std::optional<double> median_s(std::int64_t since = 0) const;

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

    // A CPython verdict taken on a few samples of a shared, loaded machine
    // can be wrong, so it is final only at the third loss: after a loss the
    // situation runs in CPython (its executable kept) for this many of its
    // CPython calls, then the graph gets a new trial, judged afresh. A graph
    // really slower than CPython loses every trial and costs a few slow calls
    // per trial, each trial further apart.
    inline constexpr std::int64_t cost_retry_after[] = {64, 512};
    inline constexpr int num_cost_trials = 1 + static_cast<int>(std::size(cost_retry_after));

    // The engine's own heavy work (a profiling run, a conversion, a backend
    // compile) anywhere in the process moves this counter. A CPython sample
    // that saw it move timed that work too (a nested region warming up
    // inside a loop iteration): the sample is not used.
    void note_engine_work();
    std::uint64_t engine_work();

    struct spec_cost
    {
        cost_verdict verdict = cost_verdict::undecided;
        // What one sample measures: a whole call, or (a recursion over a
        // tree, whose trees differ in size) one node of the tree; the times
        // below are per unit.
        const char* unit = "call";
        call_samples graph;       // completed graph calls, guards to return value
        call_samples cpython;     // CPython calls that matched the guards
        double graph_units = 0.0; // units the graph calls ran (time saved)
        // The fastest whole graph call (the floor is about calls, whatever
        // the unit).
        double graph_call_min_s = 0.0;
        std::string reason; // why CPython won, for the report
        // Checks taken so far in this trial (num_cost_checks: no more).
        int checks = 0;
        // CPython verdicts so far (num_cost_trials: final), and the count of
        // CPython calls at which the graph is tried again after the last one.
        int losses = 0;
        std::int64_t retry_at = 0;
        // graph.count() when this trial began (0, or a retry): its checks
        // count and judge the graph calls from there on.
        std::int64_t trial_start = 0;
        // cpython.count() when the current check began, and how many samples
        // it wants: cost_samples, more while the medians are too close to
        // call (up to cost_max_samples).
        std::int64_t check_start = 0;
        std::int64_t check_wanted = 0;
        // graph.count() when the latest CPython sample arrived: samples
        // alternate with graph calls, and the first one waits for the second
        // graph call (the first pays for the executable's first allocations).
        std::int64_t graph_at_last_sample = 1;
        // CPython samples asked for that never arrived (the last iteration
        // of a loop run: nothing marks its end). Past `cost_samples` of them
        // in one check, the check is taken on the samples there are.
        std::int64_t lost_samples = 0;
        std::int64_t lost_before_check = 0;
        // CPython calls that timed the engine's own work too (note_engine_work):
        // not samples; the next call is asked for one again.
        std::int64_t polluted_samples = 0;
        // Tests: the times to record instead of the clock's, so a verdict is
        // deterministic (engine_core::inject_cost).
        std::optional<double> injected_graph_s;
        std::optional<double> injected_cpython_s;

        // Graph calls of the current trial.
        std::int64_t trial_calls() const { return graph.count() - trial_start; }

        // The trial's graph call count at which the current check is due.
        std::int64_t check_due(const config& cfg) const
        {
            return checks == 0 ? cfg.cost_check_runs
                               : cost_rechecks[static_cast<std::size_t>(checks - 1)];
        }

        // Units in an average graph call.
        double units_per_call() const
        {
            return graph.count() > 0 ? graph_units / static_cast<double>(graph.count()) : 1.0;
        }

        std::int64_t wanted_samples(const config& cfg) const
        {
            return check_wanted > 0 ? check_wanted : cfg.cost_samples;
        }

        // Hot: the next call matching the guards should run in CPython to be
        // timed: a check is due (or, for the first, under way), its samples
        // are not all in, and a graph call ran since the last sample (both
        // kinds see the same warm caches); graph calls under the floor need
        // none.
        bool wants_cpython_sample(const config& cfg) const
        {
            return cfg.cost_check && verdict != cost_verdict::cpython && checks < num_cost_checks &&
                   cpython.count() - check_start < wanted_samples(cfg) &&
                   lost_samples - lost_before_check < cfg.cost_samples &&
                   graph.count() > graph_at_last_sample &&
                   (checks == 0 || trial_calls() >= check_due(cfg)) &&
                   graph_call_min_s >= cfg.cost_floor_s;
        }

        // A CPython verdict that is not final yet (fewer than
        // num_cost_trials losses).
        bool on_probation() const
        {
            return verdict == cost_verdict::cpython && losses < num_cost_trials;
        }
        // Hot: the probation is over; the caller starts a new trial
        // (start_trial) and runs the graph.
        bool retry_due() const { return on_probation() && cpython.count() >= retry_at; }
        void start_trial();

        // Estimated seconds the graph calls saved against CPython in this
        // situation: units run by graph calls x (median CPython - median
        // graph). nullopt while either median is unknown.
        std::optional<double> time_saved_s() const;
    };

    // After a graph call: takes the verdict when a check is due and its
    // samples are in, on the medians of the latest calls of each kind (the
    // CPython samples are interleaved with graph calls, so both saw the
    // machine in the same state; a median shrugs off the odd slow call that
    // a minimum of a few samples cannot). Returns true when CPython won just
    // now (`c.reason` says by how much). Medians closer than
    // `cost_clear_ratio` are not called a loss before `cost_max_samples`
    // CPython samples are in: on a loaded machine three samples cannot tell a
    // graph 10 % faster from one 5 % slower.
    bool judge(spec_cost& c, const config& cfg);
} // namespace specula::engine
