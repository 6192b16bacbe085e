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
        m_expected.reset();
        m_expecting = false;
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

    void region::set_terminal(region_state s, std::string reason, bool keep_specialisations)
    {
        m_state = s;
        m_reason = std::move(reason);
        if (!keep_specialisations)
        {
            m_specs.clear();
        }
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

    void region::blacklist_keeping_specialisations(std::string reason)
    {
        set_terminal(region_state::blacklisted, std::move(reason), true);
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
        return true;
    }

    void region::record_fallback(std::string why)
    {
        ++m_counters.fallbacks;
        m_reason = std::move(why);
    }

    void region::record_cost_cpython_call(std::string why)
    {
        ++m_counters.cost_cpython_calls;
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

    void region::record_cpython_time(double seconds)
    {
        if (std::shared_ptr<spec_cost> cost = m_expected.lock())
        {
            cost->graph_at_last_sample = cost->graph.count();
            if (cost->injected_cpython_s)
            {
                seconds = *cost->injected_cpython_s * m_expected_units;
                cost->cpython.add(*cost->injected_cpython_s);
            }
            else if (engine_work() != m_expected_work)
            {
                // The call also timed the engine compiling or profiling
                // another region: no sample of this situation, the next
                // call of it is asked for one again.
                ++cost->polluted_samples;
            }
            else
            {
                cost->cpython.add(seconds / m_expected_units);
            }
        }
        m_expected.reset();
        m_expecting = false;
        ++m_timing.cpython_calls;
        m_timing.cpython_s += seconds;
    }

    void region::sample_lost()
    {
        if (std::shared_ptr<spec_cost> cost = m_expected.lock())
        {
            ++cost->lost_samples;
        }
    }

    bool region::record_graph_time(spec_cost& cost, double seconds, double units)
    {
        const double per_unit = cost.injected_graph_s.value_or(seconds / units);
        const double call_s = cost.injected_graph_s ? per_unit * units : seconds;
        ++m_timing.graph_calls;
        m_timing.graph_s += call_s;
        if (cost.graph.count() == 0 || call_s < cost.graph_call_min_s)
        {
            cost.graph_call_min_s = call_s;
        }
        cost.graph.add(per_unit);
        cost.graph_units += units;
        return judge(cost, m_config);
    }
} // namespace specula::engine
