// The pool's lanes never take a process-directed signal (thread_signals.hpp):
// Python runs handlers on the main thread only, and a SIGINT caught by a lane
// would trip Python's flag without waking its eval loop, so the
// KeyboardInterrupt would come late or never (a lost interrupt).

#include "backends/cpu/thread_pool.hpp"
#include "backends/thread_signals.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

namespace
{
    using namespace specula::backends;

    struct lane_mask
    {
        std::thread::id who;
        bool sigint = false;
        bool sigalrm = false;
        bool sigterm = false;
        bool sigsegv = false;
    };

    lane_mask current_mask()
    {
        return {std::this_thread::get_id(), blocks_signal(SIGINT), blocks_signal(SIGALRM),
                blocks_signal(SIGTERM), blocks_signal(SIGSEGV)};
    }

    TEST(lane_signals, a_worker_lane_blocks_asynchronous_signals_and_the_caller_keeps_its_mask)
    {
        ASSERT_FALSE(blocks_signal(SIGINT)) << "the test must start with SIGINT deliverable";
        cpu::thread_pool pool(2);
        EXPECT_FALSE(blocks_signal(SIGINT)) << "making the pool changed the caller's mask";

        lane_mask seen[2];
        std::atomic<int> started{0};
        pool.run(
            [&](int share)
            {
                seen[share] = current_mask();
                ++started;
                // Each share waits for the other: both cannot be run by one thread
                // in turn, so one of them runs on the worker lane. (A hang guard
                // only, long enough never to matter.)
                const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
                while (started.load() < 2 && std::chrono::steady_clock::now() < give_up)
                {
                    std::this_thread::yield();
                }
            });
        ASSERT_EQ(started.load(), 2);
        ASSERT_NE(seen[0].who, seen[1].who) << "both shares ran on one thread";
        const std::thread::id me = std::this_thread::get_id();
        for (const lane_mask& m : seen)
        {
            if (m.who == me)
            {
                EXPECT_FALSE(m.sigint) << "the calling lane must keep the caller's mask";
                continue;
            }
            EXPECT_TRUE(m.sigint) << "a worker lane can receive SIGINT";
            EXPECT_TRUE(m.sigalrm) << "a worker lane can receive SIGALRM";
            EXPECT_TRUE(m.sigterm) << "a worker lane can receive SIGTERM";
            EXPECT_FALSE(m.sigsegv) << "a fault on a lane must still reach its handler";
        }
    }

    TEST(lane_signals, the_guard_restores_the_previous_mask)
    {
        ASSERT_FALSE(blocks_signal(SIGALRM));
        {
            async_signals_blocked quiet;
            EXPECT_TRUE(blocks_signal(SIGALRM));
            EXPECT_TRUE(blocks_signal(SIGINT));
            EXPECT_FALSE(blocks_signal(SIGBUS));
        }
        EXPECT_FALSE(blocks_signal(SIGALRM));
        EXPECT_FALSE(blocks_signal(SIGINT));
    }
} // namespace
