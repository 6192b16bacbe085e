#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

#include <gtest/gtest.h>
#include <pthread.h>

#include "kernel/sigint_gate.hpp"

namespace sk = specula::kernel;

namespace
{
    volatile std::sig_atomic_t g_delivered = 0;

    void count_sigint(int)
    {
        g_delivered = g_delivered + 1;
    }

    struct sigint_handler_scope
    {
        struct sigaction m_old
        {
        };

        sigint_handler_scope()
        {
            struct sigaction action
            {
            };
            action.sa_handler = count_sigint;
            sigemptyset(&action.sa_mask);
            sigaction(SIGINT, &action, &m_old);
            g_delivered = 0;
        }
        ~sigint_handler_scope() { sigaction(SIGINT, &m_old, nullptr); }
    };
} // namespace

TEST(sigint_gate, blocked_signal_stays_pending_and_is_discarded)
{
    sigint_handler_scope handler;
    sk::block_sigint();
    ASSERT_TRUE(sk::sigint_blocked());
    pthread_kill(pthread_self(), SIGINT);
    EXPECT_EQ(g_delivered, 0);
    EXPECT_TRUE(sk::discard_pending_sigint());
    EXPECT_FALSE(sk::discard_pending_sigint());
}

TEST(sigint_gate, window_drops_idle_interrupt_then_delivers_live_ones)
{
    sigint_handler_scope handler;
    sk::block_sigint();
    pthread_kill(pthread_self(), SIGINT); // arrives while "idle"
    {
        sk::sigint_window window;
        EXPECT_FALSE(sk::sigint_blocked());
        EXPECT_EQ(g_delivered, 0);
        pthread_kill(pthread_self(), SIGINT); // arrives while a cell "runs"
        EXPECT_EQ(g_delivered, 1);
    }
    EXPECT_TRUE(sk::sigint_blocked());
}

TEST(sigint_gate, shield_defers_delivery_until_it_ends)
{
    sigint_handler_scope handler;
    sk::block_sigint();
    sk::sigint_window window;
    {
        sk::sigint_shield shield;
        EXPECT_TRUE(sk::sigint_blocked());
        pthread_kill(pthread_self(), SIGINT);
        EXPECT_EQ(g_delivered, 0);
    }
    EXPECT_EQ(g_delivered, 1);
    EXPECT_FALSE(sk::sigint_blocked());
}

namespace
{
    std::atomic<int> g_interrupts{0};

    void count_interrupt()
    {
        g_interrupts.fetch_add(1);
    }

    // Sends SIGINT to a thread that has it unblocked (as OpenBLAS's workers
    // do) and waits for that thread to have handled it.
    void sigint_to_foreign_thread()
    {
        std::thread foreign(
            []
            {
                sigset_t set;
                sigemptyset(&set);
                sigaddset(&set, SIGINT);
                pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
                pthread_kill(pthread_self(), SIGINT);
            });
        foreign.join();
    }

    bool wait_for_interrupts(int count)
    {
        for (int i = 0; i < 1000 && g_interrupts.load() < count; ++i)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        return g_interrupts.load() == count;
    }
} // namespace

TEST(sigint_gate, foreign_thread_sigint_is_dropped_while_idle)
{
    sigint_handler_scope restore;
    sk::block_sigint();
    sk::install_sigint_handler(count_interrupt);
    g_interrupts = 0;
    sigint_to_foreign_thread();
    EXPECT_FALSE(sk::discard_pending_sigint());
    EXPECT_EQ(g_interrupts.load(), 0);
}

TEST(sigint_gate, foreign_thread_sigint_reaches_the_shell_thread_during_a_cell)
{
    sigint_handler_scope restore;
    sk::block_sigint();
    sk::install_sigint_handler(count_interrupt);
    g_interrupts = 0;
    {
        sk::sigint_window window;
        sigint_to_foreign_thread();
        EXPECT_TRUE(wait_for_interrupts(1));
    }
    EXPECT_EQ(g_interrupts.load(), 1);
}
