# Empty arrays: sum and prod of nothing, the mean of nothing (nan plus a warning),
# max of nothing (ValueError), and empty matmul.
# expect: compiled reduce_all
import numpy as np
from _probe import call


def reduce_all(x, w):
    s = x.sum(axis=0)
    p = np.prod(x)
    m = x @ w
    out = (s, p, m, x.shape, x.size, np.zeros_like(x).ndim)
    if x.size == 0 and x.shape[0] == 0:
        return out + (x.mean(),)
    return out + (x.max(),)


w = np.ones((3, 2))
for i in range(25):
    n = i % 3
    x = np.arange(n * 3, dtype=np.float64).reshape(n, 3)
    call(f"r{i}", reduce_all, x, w)
    call(f"e{i}", reduce_all, np.empty((n, 3)) if n == 0 else x[:0], w)
