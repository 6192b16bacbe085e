#include <string>

#include <gtest/gtest.h>

#include "kernel/history_manager.hpp"

namespace sk = specula::kernel;
using nl::json;

namespace
{
    // Stores cells as the kernel does: begin_cell with the real execution
    // count, then xeus's store_inputs with its (wrong) line number 1.
    void store(sk::history_manager& h, int count, const std::string& code)
    {
        h.begin_cell(count);
        h.store_inputs(0, 1, code);
    }

    json request(const json& content, const sk::history_manager& h)
    {
        return h.process_request(content);
    }
} // namespace

TEST(history_manager, tail_returns_last_n_in_order_with_real_line_numbers)
{
    sk::history_manager h;
    store(h, 1, "a = 1");
    store(h, 2, "b = 2");
    store(h, 4, "c = 3"); // count 3 was a store_history=False cell
    json reply = request({{"hist_access_type", "tail"}, {"n", 2}}, h);
    EXPECT_EQ(reply["status"], "ok");
    ASSERT_EQ(reply["history"].size(), 2u);
    EXPECT_EQ(reply["history"][0], json::array({1, 2, "b = 2"}));
    EXPECT_EQ(reply["history"][1], json::array({1, 4, "c = 3"}));
}

TEST(history_manager, tail_with_output_pairs_input_and_output)
{
    sk::history_manager h;
    store(h, 1, "1 + 1");
    json reply = request({{"hist_access_type", "tail"}, {"n", 1}, {"output", true}}, h);
    ASSERT_EQ(reply["history"][0][2].size(), 2u);
    EXPECT_EQ(reply["history"][0][2][0], "1 + 1");
}

TEST(history_manager, range_is_half_open_and_honours_session_zero)
{
    sk::history_manager h;
    for (int i = 1; i <= 5; ++i)
    {
        store(h, i, "x = " + std::to_string(i));
    }
    json reply =
        request({{"hist_access_type", "range"}, {"session", 0}, {"start", 2}, {"stop", 4}}, h);
    ASSERT_EQ(reply["history"].size(), 2u);
    EXPECT_EQ(reply["history"][0][1], 2);
    EXPECT_EQ(reply["history"][1][1], 3);

    json same = request({{"hist_access_type", "range"},
                         {"session", sk::history_manager::current_session},
                         {"start", 2},
                         {"stop", 4}},
                        h);
    EXPECT_EQ(same, reply);
}

TEST(history_manager, range_of_another_session_is_empty)
{
    sk::history_manager h;
    store(h, 1, "x");
    json reply =
        request({{"hist_access_type", "range"}, {"session", 7}, {"start", 1}, {"stop", 9}}, h);
    EXPECT_TRUE(reply["history"].empty());
}

TEST(history_manager, search_unique_and_n)
{
    sk::history_manager h;
    store(h, 1, "print(1)");
    store(h, 2, "x = 2");
    store(h, 3, "print(1)");
    store(h, 4, "print(2)");
    json all = request({{"hist_access_type", "search"}, {"pattern", "print*"}, {"n", 0}}, h);
    EXPECT_EQ(all["history"].size(), 3u);

    json unique =
        request({{"hist_access_type", "search"}, {"pattern", "print(1)"}, {"unique", true}}, h);
    ASSERT_EQ(unique["history"].size(), 1u);
    EXPECT_EQ(unique["history"][0][1], 3); // the latest occurrence

    json two = request({{"hist_access_type", "search"}, {"pattern", "*"}, {"n", 2}}, h);
    ASSERT_EQ(two["history"].size(), 2u);
    EXPECT_EQ(two["history"][0][1], 3);
    EXPECT_EQ(two["history"][1][1], 4);
}

TEST(glob_match, star_and_question_mark)
{
    EXPECT_TRUE(sk::glob_match("*", ""));
    EXPECT_TRUE(sk::glob_match("a*c", "abbbc"));
    EXPECT_TRUE(sk::glob_match("a?c", "abc"));
    EXPECT_FALSE(sk::glob_match("a?c", "ac"));
    EXPECT_FALSE(sk::glob_match("abc", "abcd"));
    EXPECT_TRUE(sk::glob_match("*b*", "abc"));
    EXPECT_TRUE(sk::glob_match("1?2*", "1 2 3"));
}
