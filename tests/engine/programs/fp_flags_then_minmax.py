# A division by zero (or 0/0, overflow) early in a graph, followed by kernels
# whose NumPy loops clear the FP status word when they finish (maximum,
# minimum, float comparisons): NumPy warns after the division's own ufunc
# call, so the graph run must still see the flag at its end and leave the
# call to CPython, which warns exactly as NumPy does.
# expect: compiled ratio_clipped, ratio_masked, scaled_floor
import numpy as np
from _probe import snapshot, call

x = np.linspace(-1.0, 1.0, 6)


def ratio_clipped(x, y):
    r = x / y
    return np.minimum(np.maximum(r, -2.0), 2.0)


def ratio_masked(x, y):
    r = x / y
    return r, r > 0.5, x == y


def scaled_floor(x, s):
    big = np.exp(x * s)
    return np.maximum(big, 1.0), big < 3.0


for i in range(30):
    y = np.full(6, 0.5 + i)
    if i in (22, 27):
        y[2] = 0.0  # 0/0 and -x/0: invalid and divide
    call(f"clipped{i}", ratio_clipped, x, y)
    call(f"masked{i}", ratio_masked, x, y)
    call(f"floor{i}", scaled_floor, x, 2.0 if i != 25 else 800.0)  # overflow once
snapshot("x", x)
