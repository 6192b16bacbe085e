# The two sides of an `if` on array data give a name numbers of different types
# (a Python float on one side, a NumPy float64 on the other; a Python int against
# a Python float): after the if the value's type depends on the data, so no graph
# value stands for it and the functions stay in CPython (the report says "of
# different types on the two sides of an if on array data").
# must-not-convert: float_or_scalar, int_or_float
import numpy as np
from _probe import snapshot, call


def float_or_scalar(x):
    if x.sum() > 0.0:
        s = 0.5
    else:
        s = x.sum()
    return x * 2.0, s


def int_or_float(x, n):
    if x.max() > 1.0:
        k = n + 1
    else:
        k = 1.5
    return x + 1.0, k


x = np.array([0.5, -0.25, 1.5])
for i in range(24):
    sign = 1.0 if i % 3 else -1.0
    out, s = call(f"float_or_scalar{i}", float_or_scalar, x * sign)
    snapshot(f"type_s{i}", type(s).__name__)
    out, k = call(f"int_or_float{i}", int_or_float, x * sign, i)
    snapshot(f"type_k{i}", type(k).__name__)
