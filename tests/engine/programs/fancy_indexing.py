# Integer-array indexing: gathers, scatters with duplicate indices (`a[idx] += 1`
# counts a duplicate once), negative indices, and an out-of-bounds IndexError.
# expect: compiled scatter
import numpy as np
from _probe import snapshot, call


def scatter(a, idx, vals):
    g = a[idx]
    a[idx] += 1
    a[idx[::-1]] = vals
    b = a[[0, -1]]
    return g, b


a = np.zeros(6)
for i in range(26):
    idx = np.array([0, 2, 2, 5, -1]) if i < 25 else np.array([0, 6])
    call(f"scatter{i}", scatter, a, idx, np.arange(len(idx), dtype=float) * i)
snapshot("a", a)
