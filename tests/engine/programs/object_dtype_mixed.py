# A function compiled for float arrays, then given an object-dtype array (of Python
# ints that overflow int64, and Fractions): those calls must run in CPython.
# expect: compiled poly
from fractions import Fraction
import numpy as np
from _probe import call


def poly(x):
    return x * x * 3 + x - 1


for i in range(30):
    if i < 20:
        x = np.arange(5.0) + i
    elif i < 25:
        x = np.array([2 ** 70 + i, -3, 5], dtype=object)
    else:
        x = np.array([Fraction(1, i), Fraction(i, 7)], dtype=object)
    call(f"poly{i}", poly, x)
