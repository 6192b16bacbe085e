// Per-specialisation cost verdicts: each specialisation weighs its own graph
// calls against CPython calls of its own situation (calls that matched its
// guards but ran in CPython), so a slow graph in one situation cannot hide
// behind a fast one in another. Python-free (unit-tested).
#pragma once

#include <array>
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

    struct spec_cost
    {
        cost_verdict verdict = cost_verdict::undecided;
        call_samples graph;   // completed graph calls, guards to return value
        call_samples cpython; // CPython calls that matched the guards
        std::string reason;   // why CPython won, for the report
        // CPython samples asked for that never arrived (the last iteration
        // of a loop run: nothing marks its end). Past `cost_samples` of them
        // the verdict is taken on the samples there are.
        std::int64_t lost_samples = 0;
        // Tests: the times to record instead of the clock's, so a verdict is
        // deterministic (engine_core::inject_cost).
        std::optional<double> injected_graph_s;
        std::optional<double> injected_cpython_s;

        // Hot: the next call matching the guards should run in CPython to be
        // timed. CPython samples alternate with graph calls (both see the
        // same warm caches), from the second graph call on (the first one
        // pays for the executable's first allocations); graph calls under
        // the floor need none.
        bool wants_cpython_sample(const config& cfg) const
        {
            return cfg.cost_check && verdict == cost_verdict::undecided &&
                   cpython.count() < cfg.cost_samples && lost_samples < cfg.cost_samples &&
                   graph.count() > cpython.count() + 1 && graph.min_s() >= cfg.cost_floor_s;
        }

        // Estimated seconds the graph calls saved against CPython in this
        // situation: graph calls x (median CPython - median graph).
        // nullopt while either median is unknown.
        std::optional<double> time_saved_s() const;
    };

    // After a graph call: takes the verdict once its calls are in (fastest
    // against fastest: noise only adds time). Returns true when CPython won
    // just now (`c.reason` says by how much).
    bool judge(spec_cost& c, const config& cfg);
} // namespace specula::engine
