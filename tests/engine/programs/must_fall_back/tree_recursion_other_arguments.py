# Recursions the tree conversion cannot express: a recursive call on something
# other than an attribute of the node (an item of a list of children), a
# parameter changed on the way down, and a recursion returning a Python float.
# Each is refused with its reason and stays in CPython.
# must-not-convert: total, scaled, count
import numpy as np
from _probe import snapshot, call

rng = np.random.default_rng(4)


class Node:
    def __init__(self, value, children=(), left=None, right=None):
        self.value = value
        self.children = list(children)
        self.left, self.right = left, right


def grow(n):
    if n == 1:
        return Node(rng.standard_normal(3))
    k = int(rng.integers(1, n))
    a, b = grow(k), grow(n - k)
    return Node(rng.standard_normal(3), [a, b], a, b)


def total(node):
    if not node.children:
        return node.value * 1.0
    return total(node.children[0]) + total(node.children[1])


def scaled(node, s):
    if node.left is None:
        return np.full(3, s)
    return scaled(node.left, s * 0.5) + scaled(node.right, s * 0.5)


def count(node, w):
    if node.left is None:
        return 1.0
    return count(node.left, w) + count(node.right, w) + 0.0


for i in range(22):
    t = grow(int(rng.integers(2, 7)))
    call(f"total{i}", total, t)
    call(f"scaled{i}", scaled, t, 1.0)
    call(f"count{i}", count, t, 2.0)
