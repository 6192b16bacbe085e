# W4's backward: the base case branches on whether a dict built at run time holds
# the leaf's word (`if node.word in grads`), data-dependent dict membership the
# converter cannot express, and it writes into that dict. Stays in CPython.
# must-not-convert: backward
import numpy as np
from _probe import snapshot, call

rng = np.random.default_rng(8)


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.word, self.left, self.right = word, left, right


def grow(n):
    if n == 1:
        return Node(word=int(rng.integers(6)))
    k = int(rng.integers(1, n))
    return Node(left=grow(k), right=grow(n - k))


def backward(node, dh, grads):
    if node.word is not None:
        if node.word in grads:
            grads[node.word] += dh
        else:
            grads[node.word] = dh.copy()
        return
    backward(node.left, dh, grads)
    backward(node.right, dh, grads)


for i in range(22):
    g = {}
    call(f"backward{i}", backward, grow(int(rng.integers(2, 8))), np.ones(3), g)
    snapshot(f"grads{i}", sorted(g.items()))
