# Footgun: dtype promotion drift — the same expression gets another result dtype
# when a Python scalar's value changes (value-based casting) or becomes a NumPy
# scalar or a 0-d array.
# expect: compiled bump
import numpy as np
from _probe import call


def bump(a, k):
    return a + k, a * k, (a - k).dtype


a8 = np.array([1, 2, 120], dtype=np.int8)
f16 = np.array([1.0, 2.0], dtype=np.float16)
ks = [1] * 20 + [100, 200, 40000, 2 ** 40, -1, np.int64(1), np.array(1), 1.5, np.float64(2)]
with np.errstate(all="ignore"):
    for i, k in enumerate(ks):
        call(f"i8_{i}", bump, a8, k)
        call(f"f16_{i}", bump, f16, k)
