# `if` on array data whose side has effects (print, attribute writes, in-place
# updates): the profiling calls only ever took one side, so the graph runs that
# side under an assert of the condition. The branch flips after compilation:
# the assert fails, the call runs in CPython and nothing of the failed attempt
# is visible (the in-place update before the branch is not committed twice).
# Conditions of several kinds: a reduction against a Python float attribute,
# x.max() > c, x.sum() > 0, an elif chain, a branch inside an inlined helper.
# expect: compiled track, shrink, classify
import numpy as np
from _probe import snapshot, call


class Tracker:
    def __init__(self):
        self.best = 0.5
        self.note = "none"


def track(state, w, g, x):
    w -= 0.125 * g
    loss = (x * x).mean()
    if loss < state.best:
        state.best = float(loss)
        print("improved", loss)
    return w.sum()


def clamp(x):
    if x.max() > 4.0:
        print("clamped", x.max())
        x = np.minimum(x, 4.0)
    return x


def shrink(x, scale):
    y = clamp(x * scale)
    if y.sum() > 0:
        return y * 0.5
    return y


def classify(t, x):
    s = x.mean()
    if s > 1.0:
        t.note = "high"
        out = x - 1.0
    elif s < -1.0:
        t.note = "low"
        out = x + 1.0
    else:
        out = x * 2.0
    return out


t = Tracker()
w = np.linspace(-1.0, 1.0, 6)
for i in range(40):
    g = np.cos(np.arange(6.0) + i)
    x = np.full(3, 1.0 + 0.01 * i) if i < 25 or i % 4 else np.full(3, 0.3 * (40 - i) / 40)
    call(f"track{i}", track, t, w, g, x)
    scale = 0.5 if i < 22 else (3.0 if i % 3 else -1.0)
    call(f"shrink{i}", shrink, np.linspace(0.5, 2.0, 5), scale)
    x = np.linspace(-0.5, 0.5, 4) + (0.0 if i < 24 else (3.0 if i % 2 else -3.0))
    call(f"classify{i}", classify, t, x)
snapshot("t", t)
snapshot("w", w)
