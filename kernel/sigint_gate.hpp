#ifndef SPECULA_KERNEL_SIGINT_GATE_HPP
#define SPECULA_KERNEL_SIGINT_GATE_HPP

namespace specula::kernel
{
    // Jupyter interrupts a kernel with SIGINT: while a cell runs it must raise
    // KeyboardInterrupt; while idle (and at every shutdown, where
    // jupyter_client sends one too) it must do nothing. A SIGINT that reaches
    // a thread blocked in zmq makes the poll fail with EINTR and xeus abort.
    //
    // So SIGINT is blocked in every thread we create, from before the first
    // one exists, and opened only on the shell thread for the span of a cell.
    //
    // Threads we do not create escape that: OpenBLAS starts its workers from a
    // library constructor before main(), and threads started inside a cell
    // inherit the cell's open mask. A SIGINT the OS hands to one of them must
    // neither trip Python's flag while idle (a spurious KeyboardInterrupt in
    // the next cell) nor be lost during a cell (time.sleep on the shell thread
    // must wake). install_sigint_handler() routes it: forwarded to the shell
    // thread while a cell runs, dropped otherwise.

    // Installs the process-wide SIGINT handler. `interrupt` is called on the
    // shell thread, from the signal handler, while a cell runs; it must be
    // async-signal-safe (PyErr_SetInterruptEx is). Call on the shell thread,
    // after Python has installed its own handlers.
    void install_sigint_handler(void (*interrupt)());

    // Blocks SIGINT in the calling thread; threads created later inherit it.
    // Call first thing in main().
    void block_sigint();

    // Consumes a SIGINT that is pending while blocked. Returns whether there
    // was one.
    bool discard_pending_sigint();

    // Whether SIGINT is blocked in the calling thread.
    bool sigint_blocked();

    // RAII: SIGINT is deliverable on this thread for the object's lifetime.
    // An interrupt that arrived while the kernel was idle is discarded on
    // entry, not carried into the cell.
    class sigint_window
    {
    public:
        sigint_window();
        ~sigint_window();

        sigint_window(const sigint_window&) = delete;
        sigint_window& operator=(const sigint_window&) = delete;
        sigint_window(sigint_window&&) = delete;
        sigint_window& operator=(sigint_window&&) = delete;
    };

    // RAII: SIGINT is blocked again for the object's lifetime (for waits on
    // zmq sockets inside a cell, e.g. input()). A SIGINT that arrives
    // meanwhile stays pending and is delivered when the object dies.
    class sigint_shield
    {
    public:
        sigint_shield();
        ~sigint_shield();

        sigint_shield(const sigint_shield&) = delete;
        sigint_shield& operator=(const sigint_shield&) = delete;
        sigint_shield(sigint_shield&&) = delete;
        sigint_shield& operator=(sigint_shield&&) = delete;

    private:
        bool m_was_blocked;
    };
} // namespace specula::kernel

#endif
