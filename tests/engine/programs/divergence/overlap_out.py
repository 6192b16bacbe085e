# Footgun: overlapping source and destination through out= and slice assignment.
# expect: compiled shift_add
import numpy as np
from _probe import snapshot, call


def shift_add(a):
    np.add(a[1:], a[:-1], out=a[:-1])
    np.multiply(a[:-2], 2, out=a[2:])
    a[2:] = a[:-2] + a[2:]
    a[::2] = a[1::2].copy() if len(a) % 2 == 0 else a[::2]
    return a


for i in range(25):
    a = np.arange(10.0) ** 2 - i
    call(f"sa{i}", shift_add, a)
    snapshot(f"a{i}", a)
