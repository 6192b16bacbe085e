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
