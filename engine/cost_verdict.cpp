#include "engine/cost_verdict.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace specula::engine
{
    std::optional<double> call_samples::median_s() const
    {
        if (m_count == 0)
        {
            return std::nullopt;
        }
        std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(m_count), kept);
        std::vector<double> v(m_recent.begin(), m_recent.begin() + static_cast<std::ptrdiff_t>(n));
        std::size_t mid = n / 2;
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
        return static_cast<double>(graph.count()) * (*c - *g);
    }

    namespace
    {
        // The check is passed: the graph stays, re-checked later.
        void keep_graph(spec_cost& c)
        {
            c.verdict = cost_verdict::graph;
            ++c.checks;
            c.lost_before_check = c.lost_samples;
        }
    } // namespace

    bool judge(spec_cost& c, const config& cfg)
    {
        if (!cfg.cost_check || c.verdict == cost_verdict::cpython || c.checks >= num_cost_checks ||
            c.graph.count() < c.check_due(cfg))
        {
            return false;
        }
        // Graph calls under the floor are never sampled (wants_cpython_sample):
        // either CPython is slower still, or it is under the floor too and
        // not worth judging.
        const bool starved = c.graph.min_s() < cfg.cost_floor_s;
        const std::int64_t wanted = static_cast<std::int64_t>(cfg.cost_samples) * (c.checks + 1);
        if (!starved && c.cpython.count() < wanted &&
            c.lost_samples - c.lost_before_check < cfg.cost_samples)
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
        const double graph_s = *c.graph.median_s();
        const double cpython_s = *c.cpython.median_s();
        if (cpython_s < cfg.cost_floor_s || graph_s <= cfg.cost_margin * cpython_s)
        {
            keep_graph(c);
            return false;
        }
        // A graph a little faster than CPython also goes back: within the
        // margin its gain is noise, and the report must not call it slower.
        char text[160];
        if (graph_s > cpython_s)
        {
            std::snprintf(text, sizeof text,
                          "graph slower than CPython (graph %.3g ms vs CPython %.3g ms per call)",
                          graph_s * 1e3, cpython_s * 1e3);
        }
        else
        {
            std::snprintf(text, sizeof text,
                          "graph not %.0f %% faster than CPython (graph %.3g ms vs CPython %.3g ms "
                          "per call)",
                          (1.0 - cfg.cost_margin) * 100.0, graph_s * 1e3, cpython_s * 1e3);
        }
        c.reason = text;
        c.verdict = cost_verdict::cpython;
        return true;
    }
} // namespace specula::engine
