# Returning tuples, the same array twice, an input unchanged, and unpacking.
# expect: compiled split
import numpy as np
from _probe import call


def split(x):
    y = x * 2
    lo, hi = y[: len(y) // 2], y[len(y) // 2:]
    return y, y, lo, hi, x, (lo.shape, hi.shape)


for i in range(25):
    call(f"split{i}", split, np.arange(4 + i % 3, dtype=float))
