#include "kernel/sigint_gate.hpp"

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
    } // namespace

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
        set_sigint_mask(SIG_UNBLOCK);
    }

    sigint_window::~sigint_window()
    {
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
