#include <gtest/gtest.h>

#include <memory>

#include "engine/mru_list.hpp"
#include "engine/region.hpp"

using namespace specula::engine;

TEST(engine_mru, winner_moves_to_front_and_tail_drops)
{
    mru_list<int> l(3);
    l.push_front(1);
    l.push_front(2);
    l.push_front(3);
    l.move_to_front(2); // 1
    EXPECT_EQ(l[0], 1);
    EXPECT_EQ(l[1], 3);
    l.push_front(4); // drops 2 (least recently used)
    EXPECT_EQ(l.size(), 3u);
    EXPECT_EQ(l[2], 3);
}

TEST(engine_region, life_cycle_profiling_then_compiled)
{
    config cfg;
    region r("f", "x.py", 3, cfg);
    EXPECT_EQ(r.state(), region_state::cold);
    EXPECT_EQ(r.m_slot.countdown, 2);
    EXPECT_FALSE(r.observe_profiling_call());
    EXPECT_EQ(r.state(), region_state::profiling);
    EXPECT_FALSE(r.observe_profiling_call());
    EXPECT_TRUE(r.observe_profiling_call());
    r.mark_compiled();
    EXPECT_EQ(r.state(), region_state::compiled);
    EXPECT_LT(r.m_slot.countdown, 0);
}

TEST(engine_region, not_convertible_keeps_reason_and_stops_the_hook)
{
    config cfg;
    region r("f", "x.py", 3, cfg);
    r.mark_not_convertible("not convertible: while at x.py:5");
    EXPECT_EQ(r.state(), region_state::not_convertible);
    EXPECT_EQ(*r.reason(), "not convertible: while at x.py:5");
    EXPECT_GE(r.m_slot.countdown, never_again);
}

TEST(engine_region, repeated_assert_failures_drop_then_blacklist)
{
    config cfg;
    region r("f", "x.py", 3, cfg);
    r.mark_compiled();
    EXPECT_FALSE(r.record_assert_failure("raise at x.py:4", 1));
    EXPECT_FALSE(r.record_assert_failure("raise at x.py:4", 2));
    int drops = 0;
    for (int i = 0; i < cfg.dropped_specs_to_blacklist; ++i)
    {
        drops += r.record_assert_failure("raise at x.py:4", cfg.assert_failures_to_drop) ? 1 : 0;
    }
    EXPECT_EQ(drops, cfg.dropped_specs_to_blacklist);
    EXPECT_EQ(r.state(), region_state::blacklisted);
    EXPECT_NE(r.reason()->find("raise at x.py:4"), std::string::npos);
}

TEST(engine_region, too_many_recompiles_blacklist)
{
    config cfg;
    cfg.max_recompiles = 2;
    region r("f", "x.py", 3, cfg);
    r.mark_compiled();
    r.record_compile();
    EXPECT_TRUE(r.record_guard_miss("guard miss: a"));
    r.record_compile();
    EXPECT_FALSE(r.record_guard_miss("guard miss: b"));
    EXPECT_EQ(r.state(), region_state::blacklisted);
    EXPECT_EQ(r.counters().guard_misses, 2);
}

namespace
{
    std::unique_ptr<region> compiled_region(const config& cfg)
    {
        auto r = std::make_unique<region>("f", "x.py", 3, cfg);
        while (!r->observe_profiling_call())
        {
        }
        r->mark_compiled();
        return r;
    }
} // namespace

TEST(engine_region, cost_check_blacklists_graphs_slower_than_cpython)
{
    config cfg;
    region r("f", "x.py", 3, cfg);
    r.observe_profiling_call();
    r.record_cpython_time(2e-3);
    r.record_cpython_time(1.6e-3);
    r.observe_profiling_call();
    r.observe_profiling_call();
    r.mark_compiled();
    for (int i = 0; i < cfg.cost_check_runs - 1; ++i)
    {
        EXPECT_FALSE(r.record_graph_time(3.1e-3));
    }
    EXPECT_TRUE(r.record_graph_time(3.1e-3));
    EXPECT_EQ(r.state(), region_state::blacklisted);
    EXPECT_EQ(*r.reason(), "graph slower than CPython (graph 3.1 ms vs CPython 1.6 ms per call)");
    EXPECT_EQ(r.m_slot.countdown, never_again);
    EXPECT_EQ(r.timing().cpython_calls, 2);
    EXPECT_EQ(r.timing().graph_calls, cfg.cost_check_runs);
}

TEST(engine_region, cost_check_keeps_faster_graphs_and_decides_once)
{
    config cfg;
    region r("f", "x.py", 3, cfg);
    r.observe_profiling_call();
    r.record_cpython_time(1e-3);
    r.mark_compiled();
    for (int i = 0; i < cfg.cost_check_runs; ++i)
    {
        EXPECT_FALSE(r.record_graph_time(0.5e-3));
    }
    // Decided: later slow calls (a busy machine) do not flip it.
    for (int i = 0; i < 20; ++i)
    {
        EXPECT_FALSE(r.record_graph_time(5e-3));
    }
    EXPECT_EQ(r.state(), region_state::compiled);
}

TEST(engine_region, cost_check_judges_each_new_situation_afresh)
{
    // A float32 graph beats CPython; then the arguments turn float64, and
    // that graph is slower than CPython on float64 calls: it must be judged
    // on its own calls, not ride on the first verdict.
    config cfg;
    region r("f", "x.py", 3, cfg);
    r.observe_profiling_call();
    r.record_cpython_time(1e-3);
    r.mark_compiled();
    for (int i = 0; i < cfg.cost_check_runs; ++i)
    {
        EXPECT_FALSE(r.record_graph_time(0.5e-3));
    }
    EXPECT_EQ(r.state(), region_state::compiled);
    EXPECT_TRUE(r.record_guard_miss("dtype of x changed"));
    r.record_cpython_time(2e-3);
    for (int i = 0; i < cfg.cost_check_runs - 1; ++i)
    {
        EXPECT_FALSE(r.record_graph_time(3e-3));
    }
    EXPECT_TRUE(r.record_graph_time(3e-3));
    EXPECT_EQ(r.state(), region_state::blacklisted);
    EXPECT_EQ(*r.reason(), "graph slower than CPython (graph 3 ms vs CPython 2 ms per call)");
    EXPECT_EQ(r.timing().cpython_calls, 2);
    EXPECT_EQ(r.timing().graph_calls, 2 * cfg.cost_check_runs);
}

TEST(engine_region, cost_check_samples_cpython_when_never_timed)
{
    config cfg;
    cfg.threshold = 0;
    auto held = compiled_region(cfg);
    region& r = *held;
    for (int i = 0; i < cfg.cost_check_runs; ++i)
    {
        EXPECT_FALSE(r.wants_cpython_sample());
        EXPECT_FALSE(r.record_graph_time(3e-3));
    }
    EXPECT_TRUE(r.wants_cpython_sample());
    r.record_cpython_time(1e-3);
    EXPECT_FALSE(r.wants_cpython_sample());
    EXPECT_TRUE(r.record_graph_time(3e-3));
    EXPECT_EQ(r.state(), region_state::blacklisted);
}

TEST(engine_region, cost_check_off_or_tiny_calls_are_not_judged)
{
    config off;
    off.cost_check = false;
    auto held = compiled_region(off);
    region& r = *held;
    r.record_cpython_time(1e-3);
    for (int i = 0; i < 10; ++i)
    {
        EXPECT_FALSE(r.record_graph_time(3e-3));
    }
    EXPECT_FALSE(r.wants_cpython_sample());
    EXPECT_EQ(r.state(), region_state::compiled);

    // Graph calls under the floor: kept without sampling CPython.
    config zero;
    zero.threshold = 0;
    auto held_fast = compiled_region(zero);
    for (int i = 0; i < 10; ++i)
    {
        EXPECT_FALSE(held_fast->record_graph_time(zero.cost_floor_s / 2));
        EXPECT_FALSE(held_fast->wants_cpython_sample());
    }

    config cfg;
    auto held_tiny = compiled_region(cfg);
    region& tiny = *held_tiny;
    tiny.record_cpython_time(cfg.cost_floor_s / 2);
    for (int i = 0; i < 10; ++i)
    {
        EXPECT_FALSE(tiny.record_graph_time(cfg.cost_floor_s));
    }
    EXPECT_EQ(tiny.state(), region_state::compiled);
}
