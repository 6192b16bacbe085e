# An RNN step with a loop of matmuls, interrupted by SIGINT at random points. Its
# effects (an out buffer, self.h, self.t, self.trace) must be applied in program
# order up to some point, never torn, and all of them when the call returned.
# expect: compiled RNN.step
import os
import random
import signal
import sys
import time

import numpy as np
from _probe import snapshot

ROUNDS = int(os.environ.get("SPECULA_INTERRUPT_ROUNDS", "200"))
rng = np.random.RandomState(0)


def rnn_math(x, h, W, U):
    for _ in range(4):
        h = np.tanh(x @ W + h @ U)
    return h


class RNN:
    def __init__(self, n):
        self.W = rng.standard_normal((n, n)) / np.sqrt(n)
        self.U = rng.standard_normal((n, n)) / np.sqrt(n)
        self.h = np.zeros((8, n))
        self.out = np.zeros((8, n))
        self.t = 0
        self.trace = []

    def step(self, x):
        h = rnn_math(x, self.h, self.W, self.U)
        np.copyto(self.out, h)        # effect 1
        self.h = h                    # effect 2
        self.t += 1                   # effect 3
        self.trace.append(self.t)     # effect 4
        return float(h[0, 0])


def observe(net, before_h, before_out, expected):
    out = ("old" if np.array_equal(net.out, before_out) else
           "new" if np.array_equal(net.out, expected) else "torn")
    h = ("old" if net.h is before_h else
         "new" if np.array_equal(net.h, expected) else "other")
    return out, h, net.t, len(net.trace), net.trace[-1] if net.trace else None


ARMED = [False]  # an alarm arriving after its round (a stalled machine) is not a round's interrupt


def on_alarm(signum, frame):
    if ARMED[0]:
        os.kill(os.getpid(), signal.SIGINT)


net = RNN(96)
xs = rng.standard_normal((ROUNDS + 80, 8, 96))
for k in range(60):
    net.step(xs[k])
t0 = time.perf_counter()
for k in range(60, 80):
    net.step(xs[k])
per_call = (time.perf_counter() - t0) / 20

signal.signal(signal.SIGALRM, on_alarm)
pick = random.Random(99)
violations, inside, after, lost = [], 0, 0, 0
for r in range(ROUNDS):
    x = xs[80 + r]
    before_h, before_out = net.h, net.out.copy()
    expected = rnn_math(x, net.h, net.W, net.U)
    t, n, last = net.t, len(net.trace), net.trace[-1]
    allowed = [("old", "old", t, n, last), ("new", "old", t, n, last),
               ("new", "new", t, n, last), ("new", "new", t + 1, n, last),
               ("new", "new", t + 1, n + 1, t + 1)]
    returned = False
    try:
        ARMED[0] = True
        signal.setitimer(signal.ITIMER_REAL, max(1e-6, pick.uniform(0.0, 1.5 * per_call)))
        net.step(x)
        returned = True
        deadline = time.monotonic() + 10.0   # hang guard only: a lost interrupt
        while time.monotonic() < deadline:
            pass
        lost += 1
    except KeyboardInterrupt:
        after, inside = (after + 1, inside) if returned else (after, inside + 1)
    ARMED[0] = False
    signal.setitimer(signal.ITIMER_REAL, 0)
    state = observe(net, before_h, before_out, expected)
    if state not in (allowed[-1:] if returned else allowed):
        violations.append({"round": r, "returned": returned, "state": state,
                           "allowed": allowed})

summary = {"rounds": ROUNDS, "interrupted_inside": inside, "interrupted_after": after,
           "lost_interrupts": lost, "violations": violations[:5],
           "violation_count": len(violations)}
snapshot("summary", summary)
print(summary, file=sys.stderr)
