# An RNN step with a loop of matmuls, interrupted by SIGINT at random points. Its
# effects (an out buffer, self.h, self.t, self.trace) must be applied in program
# order up to some point, never torn, and all of them when the call returned.
# expect: compiled RNN.step
import random

import numpy as np
from _probe import snapshot
from _interrupts import interrupter, rounds, seconds_per_call

ROUNDS = rounds(200)
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


net = RNN(96)
xs = rng.standard_normal((ROUNDS + 80, 8, 96))
for k in range(60):
    net.step(xs[k])
per_call = seconds_per_call(lambda k: net.step(xs[60 + k]))

sigint = interrupter()
pick = random.Random(99)
for r in range(ROUNDS):
    x = xs[80 + r]
    before_h, before_out = net.h, net.out.copy()
    expected = rnn_math(x, net.h, net.W, net.U)
    t, n, last = net.t, len(net.trace), net.trace[-1]
    allowed = [("old", "old", t, n, last), ("new", "old", t, n, last),
               ("new", "new", t, n, last), ("new", "new", t + 1, n, last),
               ("new", "new", t + 1, n + 1, t + 1)]
    returned = sigint.attempt(pick.uniform(0.0, 1.5 * per_call), net.step, x)
    sigint.expect_one_of(r, returned, observe(net, before_h, before_out, expected), allowed)

snapshot("summary", sigint.summary(ROUNDS))
