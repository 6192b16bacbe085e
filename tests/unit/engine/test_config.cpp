#include <gtest/gtest.h>

#include "engine/config.hpp"

using specula::engine::parse_config;

TEST(engine_config, defaults_when_unset)
{
    auto c = parse_config(nullptr, nullptr, nullptr);
    EXPECT_TRUE(c.enabled);
    EXPECT_EQ(c.threshold, 2);
    EXPECT_EQ(c.effective_profiling_calls(), 3);
    EXPECT_FALSE(c.dump.ir);
}

TEST(engine_config, engine_off_spellings)
{
    for (const char* off : {"off", "OFF", "0", "false", "no"})
    {
        EXPECT_FALSE(parse_config(off, nullptr, nullptr).enabled) << off;
    }
    EXPECT_TRUE(parse_config("on", nullptr, nullptr).enabled);
}

TEST(engine_config, threshold_zero_compiles_at_first_call)
{
    auto c = parse_config(nullptr, "0", nullptr);
    EXPECT_EQ(c.threshold, 0);
    EXPECT_EQ(c.effective_profiling_calls(), 1);
    EXPECT_EQ(parse_config(nullptr, "abc", nullptr).threshold, 2);
    EXPECT_EQ(parse_config(nullptr, "-3", nullptr).threshold, 2);
}

TEST(engine_config, dump_list)
{
    auto c = parse_config(nullptr, nullptr, "ir,exits");
    EXPECT_TRUE(c.dump.ir);
    EXPECT_TRUE(c.dump.exits);
    EXPECT_FALSE(c.dump.guards);
    EXPECT_TRUE(parse_config(nullptr, nullptr, "all").dump.cache);
}

TEST(engine_config, cost_check_knob)
{
    EXPECT_TRUE(parse_config(nullptr, nullptr, nullptr).cost_check);
    EXPECT_FALSE(parse_config(nullptr, nullptr, nullptr, "off").cost_check);
    EXPECT_FALSE(parse_config(nullptr, nullptr, nullptr, "0").cost_check);
    EXPECT_TRUE(parse_config(nullptr, nullptr, nullptr, "on").cost_check);
}

TEST(engine_config, numerics_mode)
{
    using specula::engine::numerics_mode;
    EXPECT_EQ(parse_config(nullptr, nullptr, nullptr).numerics, numerics_mode::fast);
    EXPECT_EQ(parse_config(nullptr, nullptr, nullptr, nullptr, "exact").numerics,
              numerics_mode::exact);
    EXPECT_EQ(parse_config(nullptr, nullptr, nullptr, nullptr, "EXACT").numerics,
              numerics_mode::exact);
    EXPECT_EQ(parse_config(nullptr, nullptr, nullptr, nullptr, "fast").numerics,
              numerics_mode::fast);
    // Anything else keeps the default rather than guessing.
    EXPECT_EQ(parse_config(nullptr, nullptr, nullptr, nullptr, "exactly").numerics,
              numerics_mode::fast);
    EXPECT_STREQ(specula::engine::numerics_name(numerics_mode::exact), "exact");
}
