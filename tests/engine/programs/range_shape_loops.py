# Loops over range(x.shape[0]) writing rows one at a time, with the shape varying.
# expect: compiled rowwise
import numpy as np
from _probe import call


def rowwise(x):
    out = np.empty_like(x)
    for r in range(x.shape[0]):
        out[r] = x[r] - x[r].mean()
        if r > 0:
            out[r] += out[r - 1]
    return out


for i in range(26):
    call(f"rw{i}", rowwise, np.arange(12.0).reshape(3 + i % 2, -1) ** 1.5)
