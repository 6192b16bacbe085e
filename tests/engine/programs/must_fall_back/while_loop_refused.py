# `while` on array data as an IR LOOP refuses what it cannot carry from trip to
# trip, and the function stays in CPython with the reason: a print in the body
# ("effects ... inside a while loop converted as an IR loop": prints would need
# stacking per trip), and a local that changes type after the first trip (a
# Python float before the loop, a NumPy scalar after a trip: after the loop its
# type would depend on whether a trip ran).
# must-not-convert: bisect_verbose, shrink_err
import numpy as np
from _probe import snapshot, call


def bisect_verbose(lo, hi, target):
    while (hi - lo).max() > target:
        mid = 0.5 * (lo + hi)
        print("width", (hi - lo).max())
        lo = np.where(mid * mid < 2.0, mid, lo)
        hi = np.where(mid * mid < 2.0, hi, mid)
    return lo, hi


def shrink_err(x, tol):
    err = 1.0
    while err > tol:
        x = x * 0.5
        err = np.abs(x).max()
    return x, err


for i in range(24):
    call(f"bisect{i}", bisect_verbose, np.ones(2), np.full(2, 2.0), 10.0 ** -(1 + i % 5))
    call(f"shrink{i}", shrink_err, np.linspace(-3.0, 3.0, 5), 10.0 ** -(1 + i % 4))
