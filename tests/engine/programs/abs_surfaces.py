# abs() hands out what CPython and NumPy do (issue 25, the 0-d search): the int
# 1 or 0 for a Python bool (bool.__abs__ is int's), a NumPy scalar for a NumPy
# scalar, a 0-d array or a NumPy comparison, a Python float for a float.
# expect: compiled magnitudes
import numpy as np
from _probe import snapshot, call


def magnitudes(x, t, z):
    flag = bool(x.sum() > t)
    return abs(flag), abs(x.sum() > t), abs(z), abs(x.sum() - t), abs(float(x[0]) - t), abs(x)


for i in range(24):
    call(f"m{i}", magnitudes, np.arange(3.0) - i / 4, i % 5, np.array(i - 11.5))
snapshot("done", True)
