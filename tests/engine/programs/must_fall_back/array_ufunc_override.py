# An argument whose class overrides __array_ufunc__ (a unit-carrying wrapper):
# NumPy defers to it, so the function must stay in CPython.
# must-not-convert: scale_add
import numpy as np
from _probe import snapshot, call


class Quantity:
    def __init__(self, value, unit):
        self.value, self.unit = value, unit

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        vals = [i.value if isinstance(i, Quantity) else i for i in inputs]
        return Quantity(getattr(ufunc, method)(*vals, **kwargs), self.unit + "'")


def scale_add(q, k):
    return np.add(np.multiply(q, k), 1.0)


for i in range(25):
    call(f"sa{i}", scale_add, Quantity(np.arange(3.0) + i, "m"), 2.0)
