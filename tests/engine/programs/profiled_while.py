# `while` on array data: the profiling calls saw the same trip count every time,
# so the graph unrolls that many trips, each asserting the test. The trip count
# changes after compilation (other data): the assert fails, CPython runs the
# call, and the region stops assuming that trip count. A loop whose exit is an
# `if` on array data with `break` (never taken while profiling, taken late), and a
# while inside an inlined helper.
# expect: compiled newton, halve_until
import numpy as np
from _probe import snapshot, call


def newton(a, x):
    steps = 0
    while np.abs(x * x - a).max() > 1e-6:
        x = 0.5 * (x + a / x)
        steps += 1
    return x, steps


def shrink_once(v):
    while v.max() > 1.0:
        v = v * 0.5
    return v


def halve_until(v, limit):
    v = shrink_once(v) + 0.75
    total = 0.0
    for k in range(3):
        if v.sum() > limit:
            break
        v = v * 0.9
        total += 1.0
    return v, total


for i in range(36):
    a = np.array([2.0, 3.0, 5.0]) if i < 24 else np.array([2.0, 30.0 + i, 5.0])
    call(f"newton{i}", newton, a, np.ones(3))
    v = np.array([3.0, 0.5, 1.5]) * (1.0 if i < 26 else 9.0)
    call(f"halve{i}", halve_until, v, 100.0 if i < 30 else 2.0)
