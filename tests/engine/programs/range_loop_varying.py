# `for t in range(n)` where n changes on every call (a sequence length): one IR
# LOOP serves every n instead of one specialisation per value. Carried: arrays
# rebound in the body (an RNN's hidden state), a Python float accumulator, an
# argument array updated in place (W -= ..., the caller sees it), the index used
# to read rows (xs[t]); range(a, b) with both bounds varying; n = 0 on a late
# call (no trip: names keep their objects, CPython runs it).
# expect: compiled rnn, decay, window_sum
import numpy as np
from _probe import snapshot, call

rng = np.random.default_rng(7)
Wxh = rng.standard_normal((5, 3)) * 0.3
Whh = rng.standard_normal((5, 5)) * 0.3
XS = rng.standard_normal((40, 3))


def rnn(h, n):
    loss = 0.0
    for t in range(n):
        z = Wxh @ XS[t] + Whh @ h
        h = np.tanh(z)
        loss = loss + float(h.sum())
    return h, loss


def decay(w, g, steps):
    for k in range(steps):
        w -= 0.01 * (g + w)
    return w


def window_sum(x, a, b):
    acc = np.zeros(3)
    for t in range(a, b):
        acc = acc + x[t] * 0.5
    return acc


w = np.linspace(-1.0, 1.0, 4)
for i in range(36):
    n = 3 + (i * 7) % 11
    if i == 33:
        n = 0
    call(f"rnn{i}", rnn, np.zeros(5), n)
    call(f"decay{i}", decay, w, np.full(4, 0.5), 1 + i % 6)
    call(f"window{i}", window_sum, XS, i % 5, 5 + (i * 3) % 9)
snapshot("w", w)
