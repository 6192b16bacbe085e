# Footgun: a dtype argument baked in by its name — a hot function casts with
# x.astype(d) and allocates with np.zeros(n, dtype=d), d passed in. Every
# float32 dtype object is a numpy.dtype[float32], whatever its byte order, and
# ">f4" is named "float32" as "<f4" is: a graph keyed on the dtype's type or
# name would give native-order arrays once a big-endian dtype arrives (after
# the function compiled), where NumPy gives big-endian ones.
# expect: compiled cast, zeros_of
import numpy as np
from _probe import call


def cast(x, d):
    return x.astype(d)


def zeros_of(x, d):
    z = np.zeros(3, dtype=d)
    z[0] = x.sum()
    return z


for i in range(20):
    native = i < 12
    call(f"cast{i}", cast, np.arange(3.0), np.dtype("f4") if native else np.dtype(">f4"))
    call(f"zeros{i}", zeros_of, np.arange(3.0), np.dtype("f8") if native else np.dtype(">f8"))
for i in range(4):
    call(f"named{i}", cast, np.arange(3.0), "f4" if i % 2 else ">f4")
