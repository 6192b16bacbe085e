# A hot function mutating two arrays, a counter and a list is interrupted by SIGINT
# at random points, hundreds of times. After every call, interrupted or not, the
# state must be one CPython itself could leave: the call's effects applied up to
# some point in program order, each array update whole (never torn), and all of
# them when the call returned. A graph run therefore commits all or nothing. Every
# SIGINT must surface as exactly one KeyboardInterrupt.
# expect: compiled step
import os
import random
import signal
import sys
import time

import numpy as np
from _probe import snapshot

N = 200_000
WARMUP = int(os.environ.get("SPECULA_INTERRUPT_WARMUP", "60"))
ROUNDS = int(os.environ.get("SPECULA_INTERRUPT_ROUNDS", "300"))


class State:
    def __init__(self):
        self.count = 0


def step(a, b, st, log):
    # Calls, not operators: CPython takes signals after calls, so an interrupt can
    # land between any two effects here, as it can between two ops of a graph.
    np.add(a, 1.0, out=a)         # effect 1
    np.subtract(b, 1.0, out=b)    # effect 2
    st.count += 1                 # effect 3
    log.append(st.count)          # effect 4
    return float(a[0] + b[0])


def observe(a, b, st, log):
    """The state as comparable values; a torn array update shows as `None`."""
    return (a[0] if (a == a[0]).all() else None, b[0] if (b == b[0]).all() else None,
            st.count, len(log), log[-1] if log else None)


def prefixes(before):
    """The states CPython can leave after interrupting step() after k effects."""
    va, vb, c, n, last = before
    return [(va, vb, c, n, last), (va + 1, vb, c, n, last), (va + 1, vb - 1, c, n, last),
            (va + 1, vb - 1, c + 1, n, last), (va + 1, vb - 1, c + 1, n + 1, c + 1)]


ARMED = [False]  # an alarm arriving after its round (a stalled machine) is not a round's interrupt


def on_alarm(signum, frame):
    if ARMED[0]:
        os.kill(os.getpid(), signal.SIGINT)  # the real SIGINT path, as from Jupyter


a, b, st, log = np.zeros(N), np.zeros(N), State(), []
for _ in range(WARMUP):   # make step hot (and compiled) before the interrupts start
    step(a, b, st, log)
t0 = time.perf_counter()
for _ in range(20):
    step(a, b, st, log)
per_call = (time.perf_counter() - t0) / 20

signal.signal(signal.SIGALRM, on_alarm)
rng = random.Random(1234)
violations, inside, after, lost = [], 0, 0, 0
for r in range(ROUNDS):
    before = observe(a, b, st, log)
    returned = False
    try:
        ARMED[0] = True
        signal.setitimer(signal.ITIMER_REAL, max(1e-6, rng.uniform(0.0, 1.5 * per_call)))
        step(a, b, st, log)
        returned = True
        deadline = time.monotonic() + 10.0   # hang guard only: a lost interrupt
        while time.monotonic() < deadline:
            pass
        lost += 1
    except KeyboardInterrupt:
        if returned:
            after += 1
        else:
            inside += 1
    ARMED[0] = False
    signal.setitimer(signal.ITIMER_REAL, 0)
    state = observe(a, b, st, log)
    allowed = prefixes(before)[-1:] if returned else prefixes(before)
    if state not in allowed:
        violations.append({"round": r, "returned": returned, "before": before, "after": state})

summary = {"rounds": ROUNDS, "interrupted_inside": inside, "interrupted_after": after,
           "lost_interrupts": lost, "violations": violations[:5],
           "violation_count": len(violations)}
snapshot("summary", summary)
print(summary, file=sys.stderr)
