# Footgun: aliasing — the same array passed as input and output, as two arguments
# where one is written, and aliasing that appears only after compilation.
# expect: compiled axpy_inplace
import numpy as np
from _probe import snapshot, call


def axpy_inplace(y, x, a):
    y *= 0.5
    y += a * x          # if x is y, this reads the halved values
    return y.sum()


for i in range(30):
    x, y = np.arange(4.0), np.ones(4)
    if i >= 22:
        x = y                       # aliasing appears late
    if i >= 26:
        x = y[::-1]                 # overlapping, reversed
    call(f"axpy{i}", axpy_inplace, y, x, 2.0)
    snapshot(f"y{i}", y)
