#include "backends/thread_signals.hpp"

#include <initializer_list>
#include <pthread.h>

namespace specula::backends
{
    namespace
    {
        sigset_t asynchronous_signals()
        {
            sigset_t set;
            sigfillset(&set);
            for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT})
            {
                sigdelset(&set, s);
            }
            return set;
        }
    } // namespace

    async_signals_blocked::async_signals_blocked()
    {
        const sigset_t block = asynchronous_signals();
        m_saved = pthread_sigmask(SIG_BLOCK, &block, &m_previous) == 0;
    }

    async_signals_blocked::~async_signals_blocked()
    {
        if (m_saved)
        {
            pthread_sigmask(SIG_SETMASK, &m_previous, nullptr);
        }
    }

    bool blocks_signal(int signal)
    {
        sigset_t current;
        if (pthread_sigmask(SIG_BLOCK, nullptr, &current) != 0)
        {
            return false;
        }
        return sigismember(&current, signal) == 1;
    }
} // namespace specula::backends
