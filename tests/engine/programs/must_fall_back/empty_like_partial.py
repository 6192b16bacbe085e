# np.empty_like whose elements are read before all of them were written: NumPy's
# values are undefined garbage, so the function must stay in CPython.
# must-not-convert: half_filled
import numpy as np
from _probe import call


def half_filled(a):
    out = np.empty_like(a)
    out[0] = a[0]
    return out[0] * 2.0


for i in range(25):
    call(f"hf{i}", half_filled, np.arange(6.0).reshape(2, 3) + i)
