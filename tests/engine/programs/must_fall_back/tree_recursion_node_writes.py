# Recursion over tree objects that stores per-node results on the nodes
# (`node.h = ...`, W4's forward): node attribute writes from a recursion are not
# converted yet (they would be per-node effects committed in visit order, and
# `node.h = L[word]` must commit a view of L). The function stays in CPython.
# must-not-convert: forward
import numpy as np
from _probe import snapshot, call

rng = np.random.default_rng(3)


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.word, self.left, self.right = word, left, right
        self.h = None

    def is_leaf(self):
        return self.word is not None


def grow(n):
    if n == 1:
        return Node(word=int(rng.integers(10)))
    k = int(rng.integers(1, n))
    return Node(left=grow(k), right=grow(n - k))


L = rng.standard_normal((10, 4))
W = rng.standard_normal((4, 8))


def forward(node, emb, w):
    if node.is_leaf():
        node.h = emb[node.word]
    else:
        forward(node.left, emb, w)
        forward(node.right, emb, w)
        node.h = np.tanh(w @ np.concatenate([node.left.h, node.right.h]))


for i in range(22):
    t = grow(int(rng.integers(2, 8)))
    call(f"forward{i}", forward, t, L, W)
    snapshot(f"root{i}", t.h)
