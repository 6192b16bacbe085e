# Recursion over tree objects, node data of several kinds: an int feature on
# inner nodes too, the base case decided by a child being None, two results per
# tree combined by the caller, float32 rows, and a caller that is itself hot
# (the recursion inlined? no: a recursive callee of a hot function stays a call).
# expect: compiled depth_vec, pool
import numpy as np
from _probe import snapshot, call

rng = np.random.default_rng(5)


class Tree:
    def __init__(self, tag, left=None, right=None):
        self.tag, self.left, self.right = tag, left, right


def grow(n):
    if n == 1:
        return Tree(int(rng.integers(0, 4)))
    k = int(rng.integers(1, n))
    return Tree(int(rng.integers(0, 4)), grow(k), grow(n - k))


E = rng.standard_normal((4, 5)).astype(np.float32)
M = (rng.standard_normal((5, 5)) * 0.5).astype(np.float32)


def depth_vec(t, table, mix):
    if t.left is None:
        return table[t.tag] + 1.0
    a = depth_vec(t.left, table, mix)
    b = depth_vec(t.right, table, mix)
    return np.maximum(a, b) * 0.5 + mix @ table[t.tag]


def pool(t, table, mix):
    if t.right is None:
        return table[t.tag] * table[t.tag]
    return pool(t.left, table, mix) + pool(t.right, table, mix) - table[t.tag] * 0.25


for i in range(22):
    t = grow(int(rng.integers(2, 10)))
    call(f"depth{i}", depth_vec, t, E, M)
    call(f"pool{i}", pool, t, E.astype(np.float64), M.astype(np.float64))
