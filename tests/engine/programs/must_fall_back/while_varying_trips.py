# `while` on array data whose trip count varied while profiling: the graph
# would need a loop with a data-dependent exit, so the function stays in
# CPython, reported "while on array data with a varying trip count" (at
# threshold 0, without profiling calls: "no trip count profiled").
# must-not-convert: bisect
import numpy as np
from _probe import snapshot, call


def bisect(lo, hi, target):
    while (hi - lo).max() > target:
        mid = 0.5 * (lo + hi)
        lo = np.where(mid * mid < 2.0, mid, lo)
        hi = np.where(mid * mid < 2.0, hi, mid)
    return lo, hi


for i in range(24):
    call(f"bisect{i}", bisect, np.ones(2), np.full(2, 2.0), 10.0 ** -(1 + i % 5))
