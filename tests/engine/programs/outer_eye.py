# outer, eye, full, zeros/ones/zeros_like/ones_like with explicit and implied dtypes.
# expect: compiled build
import numpy as np
from _probe import call


def build(v, n, fill):
    return (np.outer(v, v), np.eye(n), np.eye(n, k=1, dtype=int), np.full((2, n), fill),
            np.zeros_like(v, dtype=np.float32), np.ones_like(v), np.zeros((n,), bool),
            np.ones((n, 1), dtype=np.int8), np.full_like(v, 7))


for i in range(25):
    call(f"b{i}", build, np.arange(3) + i, 2 + i % 3, [1.5, 2, True, np.float32(3)][i % 4])
