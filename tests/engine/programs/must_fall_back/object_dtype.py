# Object-dtype arrays (Python ints beyond 64 bits, Fractions): must fall back.
# must-not-convert: weighted_total
from fractions import Fraction
import numpy as np
from _probe import call


def weighted_total(x, w):
    return (x * w).sum() + x[0]


for i in range(25):
    x = np.array([2 ** 64 + i, Fraction(1, i + 1), 3], dtype=object)
    call(f"wt{i}", weighted_total, x, np.array([1, 2, 3], dtype=object))
