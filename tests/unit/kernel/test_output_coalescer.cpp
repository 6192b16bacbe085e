#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kernel/output_coalescer.hpp"

namespace sk = specula::kernel;
using namespace std::chrono_literals;

namespace
{
    struct recorder
    {
        std::mutex mutex;
        std::vector<std::pair<std::string, std::string>> messages;

        sk::output_coalescer::sink_type sink()
        {
            return [this](const std::string& name, const std::string& text)
            {
                std::lock_guard<std::mutex> lock(mutex);
                messages.emplace_back(name, text);
            };
        }

        std::size_t size()
        {
            std::lock_guard<std::mutex> lock(mutex);
            return messages.size();
        }
    };
} // namespace

TEST(output_coalescer, a_print_becomes_one_message)
{
    recorder r;
    sk::output_coalescer out(r.sink());
    out.begin_cell();
    for (const char* piece : {"hello", " ", "world", "\n"})
    {
        out.write("stdout", piece);
    }
    out.end_cell();
    ASSERT_EQ(r.messages.size(), 1u);
    EXPECT_EQ(r.messages[0].first, "stdout");
    EXPECT_EQ(r.messages[0].second, "hello world\n");
}

TEST(output_coalescer, switching_streams_keeps_order)
{
    recorder r;
    sk::output_coalescer out(r.sink());
    out.begin_cell();
    out.write("stdout", "a\n");
    out.write("stderr", "b\n");
    out.write("stdout", "c\n");
    out.end_cell();
    ASSERT_EQ(r.messages.size(), 3u);
    EXPECT_EQ(r.messages[0], std::make_pair(std::string("stdout"), std::string("a\n")));
    EXPECT_EQ(r.messages[1], std::make_pair(std::string("stderr"), std::string("b\n")));
    EXPECT_EQ(r.messages[2], std::make_pair(std::string("stdout"), std::string("c\n")));
}

TEST(output_coalescer, empty_writes_publish_nothing)
{
    recorder r;
    sk::output_coalescer out(r.sink());
    out.begin_cell();
    out.write("stdout", "");
    out.flush();
    out.end_cell();
    EXPECT_TRUE(r.messages.empty());
}

TEST(output_coalescer, large_output_is_published_without_waiting)
{
    recorder r;
    sk::output_coalescer::timing t;
    t.max_pending = 16;
    sk::output_coalescer out(r.sink(), t);
    out.begin_cell();
    out.write("stdout", std::string(20, 'x'));
    EXPECT_EQ(r.size(), 1u);
    out.end_cell();
}

TEST(output_coalescer, timer_publishes_pending_text_during_a_cell)
{
    recorder r;
    sk::output_coalescer::timing t;
    t.max_delay = 5ms;
    t.quiet = 1ms;
    sk::output_coalescer out(r.sink(), t);
    out.start_timer();
    out.begin_cell();
    out.write("stdout", "progress\n");
    // Bounded wait for the background flush; the assertion is about whether
    // it happens, not how fast.
    for (int i = 0; i < 500 && r.size() == 0; ++i)
    {
        std::this_thread::sleep_for(10ms);
    }
    EXPECT_EQ(r.size(), 1u);
    out.end_cell();
    out.stop_timer();
}

TEST(output_coalescer, text_between_cells_waits_for_the_next_cell)
{
    recorder r;
    sk::output_coalescer::timing t;
    t.max_delay = 1ms;
    t.quiet = 1ms;
    sk::output_coalescer out(r.sink(), t);
    out.start_timer();
    out.write("stdout", "late\n");
    std::this_thread::sleep_for(30ms);
    EXPECT_EQ(r.size(), 0u);
    out.begin_cell();
    out.end_cell();
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r.messages[0].second, "late\n");
    out.stop_timer();
}
