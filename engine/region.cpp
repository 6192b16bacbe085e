#include "engine/region.hpp"

#include <cstdio>
#include <utility>

namespace specula::engine
{
    const char* state_name(region_state s)
    {
        switch (s)
        {
        case region_state::cold:
            return "cold";
        case region_state::profiling:
            return "profiling";
        case region_state::compiled:
            return "compiled";
        case region_state::not_convertible:
            return "not_convertible";
        case region_state::blacklisted:
            return "blacklisted";
        }
        return "cold";
    }

    region::region(std::string name, std::string file, int line, const config& cfg)
        : m_name(std::move(name)), m_file(std::move(file)), m_line(line), m_config(cfg),
          m_specs(static_cast<std::size_t>(cfg.max_specialisations))
    {
        m_slot.countdown = cfg.threshold;
    }

    void region::reset(const config& cfg)
    {
        m_config = cfg;
        m_state = region_state::cold;
        m_reason.reset();
        m_counters = region_counters{};
        m_timing = region_timing{};
        m_window = cost_window{};
        m_cost_checked = false;
        m_ever_hot = false;
        m_specs.clear();
        m_slot.countdown = m_code_alive ? cfg.threshold : never_again;
    }

    bool region::observe_profiling_call()
    {
        m_ever_hot = true;
        if (m_state == region_state::cold)
        {
            m_state = region_state::profiling;
        }
        ++m_counters.profiled_calls;
        return m_counters.profiled_calls >= m_config.effective_profiling_calls();
    }

    void region::mark_compiled()
    {
        m_state = region_state::compiled;
        m_slot.countdown = -1;
    }

    void region::set_terminal(region_state s, std::string reason)
    {
        m_state = s;
        m_reason = std::move(reason);
        m_specs.clear();
        // The hook stops calling the engine for this code object.
        m_slot.countdown = never_again;
    }

    void region::mark_not_convertible(std::string reason)
    {
        set_terminal(region_state::not_convertible, std::move(reason));
    }

    void region::blacklist(std::string reason)
    {
        set_terminal(region_state::blacklisted, std::move(reason));
    }

    bool region::record_guard_miss(std::string explanation)
    {
        ++m_counters.guard_misses;
        if (m_counters.compiles >= m_config.max_recompiles)
        {
            blacklist("recompiled " + std::to_string(m_counters.compiles) +
                      " times; last guard miss: " + explanation);
            return false;
        }
        m_reason = std::move(explanation);
        // The next specialisation is judged afresh, on the calls from now on.
        m_window = cost_window{};
        m_cost_checked = false;
        return true;
    }

    void region::record_fallback(std::string why)
    {
        ++m_counters.fallbacks;
        m_reason = std::move(why);
    }

    bool region::record_assert_failure(const std::string& why, std::int64_t failures_of_exit)
    {
        ++m_counters.assert_failures;
        m_reason = "assert failed: " + why;
        if (failures_of_exit < m_config.assert_failures_to_drop)
        {
            return false;
        }
        ++m_counters.dropped_specialisations;
        if (m_counters.dropped_specialisations >= m_config.dropped_specs_to_blacklist)
        {
            blacklist("assumption failed repeatedly (" +
                      std::to_string(m_counters.assert_failures) + " assert failures): " + why);
        }
        return true;
    }

    void region::record_internal_error(const std::string& what)
    {
        ++m_counters.fallbacks;
        blacklist("internal error: " + what);
    }

    namespace
    {
        // One more timed call in the cost window: its count and the fastest.
        void add_sample(std::int64_t& calls, double& min_s, double seconds)
        {
            if (calls == 0 || seconds < min_s)
            {
                min_s = seconds;
            }
            ++calls;
        }
    } // namespace

    void region::record_cpython_time(double seconds)
    {
        add_sample(m_window.cpython_calls, m_window.cpython_min_s, seconds);
        ++m_timing.cpython_calls;
        m_timing.cpython_s += seconds;
    }

    bool region::wants_cpython_sample() const
    {
        return m_config.cost_check && !m_cost_checked && m_state == region_state::compiled &&
               m_window.cpython_calls == 0 && m_window.graph_calls >= m_config.cost_check_runs;
    }

    bool region::record_graph_time(double seconds)
    {
        add_sample(m_window.graph_calls, m_window.graph_min_s, seconds);
        ++m_timing.graph_calls;
        m_timing.graph_s += seconds;
        if (!m_config.cost_check || m_cost_checked || m_state != region_state::compiled ||
            m_window.graph_calls < m_config.cost_check_runs)
        {
            return false;
        }
        if (m_window.cpython_calls == 0)
        {
            // Graph calls under the floor need no CPython sample: either
            // CPython is slower still, or it is under the floor and not judged.
            m_cost_checked = m_window.graph_min_s < m_config.cost_floor_s;
            return false;
        }
        // Decided once per situation: later calls cost nothing, and a region
        // keeps its verdict instead of flapping with the machine's load. Minima, because
        // noise only ever adds time.
        m_cost_checked = true;
        if (m_window.cpython_min_s < m_config.cost_floor_s ||
            m_window.graph_min_s <= m_config.cost_margin * m_window.cpython_min_s)
        {
            return false;
        }
        char text[160];
        std::snprintf(text, sizeof text,
                      "graph slower than CPython (graph %.3g ms vs CPython %.3g ms per call)",
                      m_window.graph_min_s * 1e3, m_window.cpython_min_s * 1e3);
        blacklist(text);
        return true;
    }
} // namespace specula::engine
