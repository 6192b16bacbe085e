# interrupt_counter.py with NumPy's floating-point errors ignored, so the two
# array updates are sunk stores (written straight into the arrays by the graph's
# last step, engine/README.md): an interrupt must still leave all or nothing.
# A hot function mutating two arrays, a counter and a list is interrupted by SIGINT
# at random points, hundreds of times. After every call, interrupted or not, the
# state must be one CPython itself could leave: the call's effects applied up to
# some point in program order, each array update whole (never torn), and all of
# them when the call returned. A graph run therefore commits all or nothing. Every
# SIGINT must surface as exactly one KeyboardInterrupt.
# expect: compiled step
import random

import numpy as np
import specula
from _probe import snapshot
from _interrupts import (counter_prefixes, counter_state, interrupter, rounds,
                         seconds_per_call, warmup)

np.seterr(all="ignore")

N = 200_000
WARMUP = warmup()
ROUNDS = rounds(300)


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
    return st.count               # not a[0]: a later read would keep the copies


a, b, st, log = np.zeros(N), np.zeros(N), State(), []
step(a, b, st, log)  # the region exists from its first call on
# The graph may be no faster than NumPy here; the test is about its stores, so the
# cost check is told to keep it (a no-op with the engine off).
getattr(specula._engine, "_inject_cost")("step", "", 1e-4, 1e-3)
for _ in range(WARMUP):   # make step hot (and compiled) before the interrupts start
    step(a, b, st, log)
per_call = seconds_per_call(lambda k: step(a, b, st, log))

sigint = interrupter()
rng = random.Random(1234)
for r in range(ROUNDS):
    before = counter_state(a, b, st, log)
    returned = sigint.attempt(rng.uniform(0.0, 1.5 * per_call), step, a, b, st, log)
    sigint.expect_one_of(r, returned, counter_state(a, b, st, log), counter_prefixes(before))

snapshot("summary", sigint.summary(ROUNDS))
