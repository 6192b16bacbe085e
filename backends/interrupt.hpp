#pragma once

// Long graph runs (a LOOP whose trip count only its data decides) must stay
// interruptible. The backends layer knows nothing of Python: the embedding
// installs a check (the engine: a pending Python signal) that the executor
// polls once per loop trip. A run that sees it true stops with
// status_code::interrupted, and nothing of it is committed.

namespace specula::backends
{
    // Returns true when the run must stop. Called on the thread running the graph.
    using interrupt_check = bool (*)();

    // nullptr removes the check. Not synchronised: install it before runs start.
    void set_interrupt_check(interrupt_check check);

    // The installed check's answer (false without one).
    bool interrupt_requested();
} // namespace specula::backends
