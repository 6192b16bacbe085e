# Recursion over tree objects storing a child's array on its parent
# (`node.h = node.left.h`): in CPython parent and child then hold one object.
# The graph's per-node tables would give each node an array of its own, so the
# write is refused and the function stays in CPython.
# must-not-convert: carry
import numpy as np
from _probe import snapshot, call

rng = np.random.default_rng(4)


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.word, self.left, self.right = word, left, right

    def is_leaf(self):
        return self.word is not None


def grow(n):
    if n == 1:
        return Node(word=int(rng.integers(10)))
    k = int(rng.integers(1, n))
    return Node(left=grow(k), right=grow(n - k))


L = rng.standard_normal((10, 3))


def carry(node, emb):
    if node.is_leaf():
        node.h = emb[node.word] * 2.0
    else:
        carry(node.left, emb)
        carry(node.right, emb)
        node.h = node.left.h


for i in range(22):
    t = grow(int(rng.integers(2, 8)))
    call(f"carry{i}", carry, t, L)
    snapshot(f"root{i}", (t.h, t.h is t.left.h))
