#pragma once

#include <csignal>

// Threads Specula starts (the CPU backend's lanes, the engine's timer) must
// never be the thread the OS hands a process-directed signal to. Python runs
// signal handlers on the main thread only, and CPython 3.11 sets its eval
// breaker from the C handler only when that handler runs on the main thread:
// a SIGINT or SIGALRM caught by one of our threads trips Python's flag but
// nothing looks at it until some other event, so the KeyboardInterrupt (or
// the alarm's handler) is late by an unbounded time, or never comes while a
// pure-Python loop spins. Blocking those signals in our threads makes the OS
// deliver them to a thread that takes them: the main one.

namespace specula::backends
{
    // RAII: while alive, the calling thread blocks every asynchronous signal,
    // so the threads it starts inherit a mask that keeps them away. The
    // synchronous ones (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS,
    // SIGABRT) stay deliverable: they concern the thread that raised them.
    // The caller's own mask is restored on destruction.
    class async_signals_blocked
    {
    public:
        async_signals_blocked();
        ~async_signals_blocked();

        async_signals_blocked(const async_signals_blocked&) = delete;
        async_signals_blocked& operator=(const async_signals_blocked&) = delete;
        async_signals_blocked(async_signals_blocked&&) = delete;
        async_signals_blocked& operator=(async_signals_blocked&&) = delete;

    private:
        sigset_t m_previous;
        bool m_saved = false;
    };

    // Whether the calling thread blocks `signal` (tests, diagnostics).
    bool blocks_signal(int signal);
} // namespace specula::backends
