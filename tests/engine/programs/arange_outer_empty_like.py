# np.arange with specialised ints, np.outer, and np.empty_like whose every element
# is written (x[:] = ..., out=) before being read.
# expect: compiled features, fill_both
import numpy as np
from _probe import snapshot, call


def features(x, n):
    k = np.arange(n)
    back = np.arange(n, 0, -2)
    grid = np.outer(x, k) + np.outer(x[:2], back).sum()
    return grid, k * 3, back


def fill_both(a, b):
    out = np.empty_like(a)
    out[:] = a * 2.0
    tmp = np.empty_like(b)
    np.multiply(b, 0.5, out=tmp)
    return out + tmp, tmp


rng = np.random.default_rng(4)
for i in range(25):
    x = rng.standard_normal(3)
    call(f"feat{i}", features, x, 5)
    call(f"fill{i}", fill_both, rng.standard_normal((2, 3)), rng.standard_normal((2, 3)))
