#include "kernel/sigint_gate.hpp"

#include <atomic>
#include <csignal>
#include <ctime>

#include <pthread.h>

namespace specula::kernel
{
    namespace
    {
        sigset_t sigint_set()
        {
            sigset_t set;
            sigemptyset(&set);
            sigaddset(&set, SIGINT);
            return set;
        }

        void set_sigint_mask(int how)
        {
            sigset_t set = sigint_set();
            pthread_sigmask(how, &set, nullptr);
        }

        // Written before the handler is installed, read only by it.
        pthread_t g_shell_thread;
        void (*g_interrupt)() = nullptr;
        std::atomic<bool> g_cell_running{false};
        static_assert(std::atomic<bool>::is_always_lock_free, "used from a signal handler");

        void on_sigint(int /*signum*/)
        {
            if (pthread_equal(pthread_self(), g_shell_thread) == 0)
            {
                // Re-aim at the shell thread; while it has SIGINT blocked (the
                // end of a cell, an input() wait) the signal waits there.
                if (g_cell_running.load())
                {
                    pthread_kill(g_shell_thread, SIGINT);
                }
                return;
            }
            // The shell thread only takes SIGINT inside a cell's window.
            if (g_interrupt != nullptr)
            {
                g_interrupt();
            }
        }
    } // namespace

    void install_sigint_handler(void (*interrupt)())
    {
        g_shell_thread = pthread_self();
        g_interrupt = interrupt;
        struct sigaction action
        {
        };
        action.sa_handler = on_sigint;
        sigemptyset(&action.sa_mask);
        // No SA_RESTART: a blocking call in the cell (time.sleep) must return
        // EINTR so that Python checks for the interrupt at once.
        action.sa_flags = SA_ONSTACK;
        sigaction(SIGINT, &action, nullptr);
    }

    void block_sigint()
    {
        set_sigint_mask(SIG_BLOCK);
    }

    bool discard_pending_sigint()
    {
        sigset_t set = sigint_set();
        timespec zero{0, 0};
        bool any = false;
        // sigtimedwait consumes a pending signal without running its handler.
        while (sigtimedwait(&set, nullptr, &zero) == SIGINT)
        {
            any = true;
        }
        return any;
    }

    bool sigint_blocked()
    {
        sigset_t current;
        pthread_sigmask(SIG_BLOCK, nullptr, &current);
        return sigismember(&current, SIGINT) == 1;
    }

    sigint_window::sigint_window()
    {
        discard_pending_sigint();
        g_cell_running.store(true);
        set_sigint_mask(SIG_UNBLOCK);
    }

    sigint_window::~sigint_window()
    {
        g_cell_running.store(false);
        set_sigint_mask(SIG_BLOCK);
        discard_pending_sigint();
    }

    sigint_shield::sigint_shield() : m_was_blocked(sigint_blocked())
    {
        if (!m_was_blocked)
        {
            set_sigint_mask(SIG_BLOCK);
        }
    }

    sigint_shield::~sigint_shield()
    {
        if (!m_was_blocked)
        {
            set_sigint_mask(SIG_UNBLOCK);
        }
    }
} // namespace specula::kernel
