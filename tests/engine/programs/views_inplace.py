# In-place updates through views and aliases, including overlapping source and
# destination (`a[1:] += a[:-1]`), which NumPy resolves by buffering.
# expect: compiled smear, shift_left, flip_add
import numpy as np
from _probe import snapshot, call


def smear(a):
    a[1:] += a[:-1]
    return a


def shift_left(a):
    a[:-1] = a[1:]
    return a[0]


def flip_add(a):
    v = a[::-1]
    a += v
    return v


for i in range(25):
    x = np.arange(10, dtype=np.float64) * (i + 1)
    call(f"smear{i}", smear, x)
    snapshot(f"x{i}", x)
    y = np.arange(8) + i
    call(f"shift{i}", shift_left, y)
    snapshot(f"y{i}", y)
    z = np.arange(7, dtype=np.int64) * i
    r = call(f"flip{i}", flip_add, z)
    snapshot(f"z{i}", (z, r))
