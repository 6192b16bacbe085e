"""SIGINT at random points of a hot call, for the programs of interrupts/.

A program makes its function hot, then runs rounds: each round arms a SIGALRM
timer whose handler sends the process a real SIGINT (the path Jupyter's interrupt
takes), calls the function, and checks the state left behind against the states
CPython itself could leave. `interrupter` counts where each SIGINT surfaced and
the violations; `summary()` is what tests/engine/test_interrupts.py asserts on
(no lost interrupt, no violation).

Plain Python run between the calls under test, like _probe.py; it never records
anything itself (the program passes the summary to `_probe.snapshot`, so the
probe sees the program as its importer).
"""

import os
import signal
import sys
import time


def rounds(default):
    return int(os.environ.get("SPECULA_INTERRUPT_ROUNDS", str(default)))


def warmup(default=60):
    return int(os.environ.get("SPECULA_INTERRUPT_WARMUP", str(default)))


def seconds_per_call(call, times=20):
    """Median wall time of call(0), ..., call(times - 1): the scale of the delays.

    The median, not the mean: on a loaded machine one preempted call would
    stretch every round's delay past the call, and the SIGINTs would land after
    it instead of inside."""
    times_ = []
    for k in range(times):
        t0 = time.perf_counter()
        call(k)
        times_.append(time.perf_counter() - t0)
    return sorted(times_)[times // 2]


class interrupter:
    """One SIGINT per round, and the count of where each one surfaced."""

    def __init__(self):
        self.inside = 0      # KeyboardInterrupt raised by the call
        self.after = 0       # raised after the call had returned
        self.lost = 0        # never raised
        self.late = 0        # raised only when the wait asked for it (see _wait_for_the_interrupt)
        self._polling = False
        self.violations = []
        # An alarm arriving after its round (a stalled machine) is not a round's
        # interrupt.
        self._armed = False
        signal.signal(signal.SIGALRM, self._on_alarm)

    def _on_alarm(self, signum, frame):
        if self._armed:
            os.kill(os.getpid(), signal.SIGINT)  # the real SIGINT path, as from Jupyter

    def _wait_for_the_interrupt(self):
        """Spin until the SIGINT raises: the eval loop raises it within a few
        bytecodes. CPython 3.11 can miss one: take_gil() recomputes the eval
        breaker from the pending flags without an atomic update, so a signal
        whose C handler runs in between leaves its handler tripped with the
        breaker off. A program heals at its next GIL acquisition (any NumPy
        call on a large array); this pure-Python spin never would, so after a
        second it asks for the pending handlers explicitly (pthread_sigmask
        runs them) and counts the round as late, not lost. A signal that is
        gone (a handler that never ran, a flag cleared without raising) still
        ends as lost after 10 s."""
        start = time.monotonic()
        while time.monotonic() < start + 1.0:
            pass
        self._polling = True
        while time.monotonic() < start + 10.0:   # hang guard only: a lost interrupt
            signal.pthread_sigmask(signal.SIG_BLOCK, ())

    def attempt(self, delay, fn, *args, returning=True):
        """fn(*args) with a SIGINT due `delay` seconds after the call starts.

        True when fn returned. A call that returned must still see its SIGINT
        (raised after it); with `returning=False` the call must never return, and
        returning counts as a lost interrupt at once.
        """
        returned = False
        try:
            self._armed = True
            signal.setitimer(signal.ITIMER_REAL, max(1e-6, delay))
            fn(*args)
            returned = True
            if returning:
                self._wait_for_the_interrupt()
            self.lost += 1
        except KeyboardInterrupt:
            if returned:
                self.after += 1
            else:
                self.inside += 1
            self.late += self._polling
        self._armed = False
        self._polling = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        return returned

    def expect_one_of(self, round_, returned, state, allowed):
        """`allowed`: the states CPython can leave when interrupted after 0, 1, ...
        of the call's effects (program order). A call that returned applied all."""
        if state not in (allowed[-1:] if returned else allowed):
            self.violation(round=round_, returned=returned, state=state, allowed=allowed)

    def violation(self, **what):
        self.violations.append(what)

    def summary(self, rounds_):
        s = {"rounds": rounds_, "interrupted_inside": self.inside,
             "interrupted_after": self.after, "lost_interrupts": self.lost,
             "late_wakeups": self.late,
             "violations": self.violations[:5], "violation_count": len(self.violations)}
        print(s, file=sys.stderr)
        return s


# interrupt_counter.py and interrupt_sunk.py: step(a, b, st, log) adds 1 to every
# element of a, subtracts 1 from b, increments st.count, appends it to log.

def counter_state(a, b, st, log):
    """The state as comparable values; a torn array update shows as `None`."""
    return (a[0] if (a == a[0]).all() else None, b[0] if (b == b[0]).all() else None,
            st.count, len(log), log[-1] if log else None)


def counter_prefixes(before):
    """The states CPython can leave after interrupting step() after k effects."""
    va, vb, c, n, last = before
    return [(va, vb, c, n, last), (va + 1, vb, c, n, last), (va + 1, vb - 1, c, n, last),
            (va + 1, vb - 1, c + 1, n, last), (va + 1, vb - 1, c + 1, n + 1, c + 1)]
