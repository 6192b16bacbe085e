#include "engine/cost_verdict.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace specula::engine
{
    namespace
    {
        std::uint64_t g_engine_work = 0;

        // A graph call this short that is clearly slower than CPython loses
        // by the fixed cost of a graph call (guards, inputs, commit: a few
        // microseconds), which no quieter moment of the machine changes: its
        // loss is final at once (a loop body of one small update).
        constexpr double fixed_cost_s = 50e-6;
    } // namespace

    void note_engine_work()
    {
        ++g_engine_work;
    }

    std::uint64_t engine_work()
    {
        return g_engine_work;
    }

    std::optional<double> call_samples::median_s(std::int64_t since) const
    {
        const std::int64_t first =
            std::max<std::int64_t>({since, 0, m_count - static_cast<std::int64_t>(kept)});
        if (m_count <= first)
        {
            return std::nullopt;
        }
        std::vector<double> v;
        v.reserve(kept);
        for (std::int64_t i = first; i < m_count; ++i)
        {
            v.push_back(m_recent[static_cast<std::size_t>(i) % kept]);
        }
        const std::size_t n = v.size();
        const std::size_t mid = n / 2;
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
        if (n % 2 == 1)
        {
            return v[mid];
        }
        double upper = v[mid];
        double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
        return (lower + upper) / 2;
    }

    const char* verdict_name(cost_verdict v)
    {
        switch (v)
        {
        case cost_verdict::undecided:
            return "undecided";
        case cost_verdict::graph:
            return "graph";
        case cost_verdict::cpython:
            return "cpython";
        }
        return "undecided";
    }

    std::optional<double> spec_cost::time_saved_s() const
    {
        std::optional<double> g = graph.median_s();
        std::optional<double> c = cpython.median_s();
        if (!g || !c)
        {
            return std::nullopt;
        }
        return graph_units * (*c - *g);
    }

    void spec_cost::start_trial()
    {
        verdict = cost_verdict::undecided;
        checks = 0;
        trial_start = graph.count();
        // The trial's first graph call runs on caches the CPython calls
        // filled: the first sample waits for its second, as in the first trial.
        graph_at_last_sample = graph.count() + 1;
        check_start = cpython.count();
        check_wanted = 0;
        lost_before_check = lost_samples;
    }

    namespace
    {
        // The check is passed: the graph stays, re-checked later.
        void keep_graph(spec_cost& c)
        {
            c.verdict = cost_verdict::graph;
            ++c.checks;
            c.check_start = c.cpython.count();
            c.check_wanted = 0;
            c.lost_before_check = c.lost_samples;
        }

        void lose(spec_cost& c, double graph_s, double cpython_s, const config& cfg)
        {
            // A graph a little faster than CPython also goes back: within the
            // margin its gain is noise, and the report must not call it slower.
            char text[200];
            if (graph_s > cpython_s)
            {
                std::snprintf(text, sizeof text,
                              "graph slower than CPython (graph %.3g ms vs CPython %.3g ms per %s)",
                              graph_s * 1e3, cpython_s * 1e3, c.unit);
            }
            else
            {
                std::snprintf(text, sizeof text,
                              "graph not %.0f %% faster than CPython (graph %.3g ms vs CPython "
                              "%.3g ms per %s)",
                              (1.0 - cfg.cost_margin) * 100.0, graph_s * 1e3, cpython_s * 1e3,
                              c.unit);
            }
            c.reason = text;
            c.verdict = cost_verdict::cpython;
            ++c.losses;
            if (graph_s * c.units_per_call() < fixed_cost_s &&
                graph_s >= cfg.cost_clear_ratio * cpython_s)
            {
                c.losses = num_cost_trials;
            }
            if (c.losses < num_cost_trials)
            {
                c.retry_at =
                    c.cpython.count() + cost_retry_after[static_cast<std::size_t>(c.losses - 1)];
            }
        }
    } // namespace

    bool judge(spec_cost& c, const config& cfg)
    {
        if (!cfg.cost_check || c.verdict == cost_verdict::cpython || c.checks >= num_cost_checks ||
            c.trial_calls() < c.check_due(cfg))
        {
            return false;
        }
        // Graph calls under the floor are never sampled (wants_cpython_sample):
        // either CPython is slower still, or it is under the floor too and
        // not worth judging.
        const bool starved = c.graph_call_min_s < cfg.cost_floor_s;
        const bool samples_lost = c.lost_samples - c.lost_before_check >= cfg.cost_samples;
        if (!starved && c.cpython.count() - c.check_start < c.wanted_samples(cfg) && !samples_lost)
        {
            return false;
        }
        if (c.cpython.count() == 0)
        {
            // CPython was never timed in this situation: keep the graph.
            c.verdict = cost_verdict::graph;
            c.checks = num_cost_checks;
            return false;
        }
        const double graph_s = *c.graph.median_s(c.trial_start);
        const double cpython_s = *c.cpython.median_s();
        if (cpython_s * c.units_per_call() < cfg.cost_floor_s ||
            graph_s <= cfg.cost_margin * cpython_s)
        {
            keep_graph(c);
            return false;
        }
        if (graph_s < cfg.cost_clear_ratio * cpython_s && !samples_lost &&
            c.wanted_samples(cfg) < cfg.cost_max_samples)
        {
            // Too close to call: more samples, still interleaved.
            c.check_wanted = std::min<std::int64_t>(c.wanted_samples(cfg) + cfg.cost_samples,
                                                    cfg.cost_max_samples);
            return false;
        }
        lose(c, graph_s, cpython_s, cfg);
        return true;
    }
} // namespace specula::engine
