# A callee mutates state (an attribute, an array in place, a list) and then raises
# on array data; the raise is an assert exit: CPython re-runs the call, and only
# its own effects (up to the raise) are visible, with the real exception.
# expect: compiled update
import numpy as np
from _probe import snapshot, call

history = []


class Tracker:
    def __init__(self):
        self.count = 0
        self.acc = np.zeros(3)


def checked_add(tracker, g):
    tracker.count += 1
    tracker.acc += g
    history.append(tracker.count)
    if tracker.acc.sum() > 40.0:
        raise OverflowError("accumulator too large")
    return tracker.acc * 0.5


def update(tracker, g):
    out = checked_add(tracker, g)
    return out.sum()


t = Tracker()
for i in range(30):
    call(f"update{i}", update, t, np.array([0.5, 1.0, 0.25]) * (1 + (i > 22) * 10))
snapshot("t", t)
snapshot("history", history)
