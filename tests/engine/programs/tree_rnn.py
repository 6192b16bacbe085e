# TreeRNN (JANUS §4): recursion over Python tree objects; trees differ between calls.
# expect: compiled encode
import numpy as np
from _probe import snapshot, call

rng = np.random.RandomState(2)
D = 4
W_left = rng.standard_normal((D, D)) * 0.5
W_right = rng.standard_normal((D, D)) * 0.5
embed = rng.standard_normal((10, D))


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.word, self.left, self.right = word, left, right
        self.visits = 0


def encode(node):
    node.visits += 1
    if node.left is None:
        return embed[node.word]
    return np.tanh(encode(node.left) @ W_left + encode(node.right) @ W_right)


def build(depth, k):
    if depth == 0:
        return Node(word=k % 10)
    return Node(left=build(depth - 1, 2 * k), right=build(depth - 1, 2 * k + 1))


trees = [build(1 + i % 3, i) for i in range(24)]
for i, t in enumerate(trees):
    call(f"tree{i}", encode, t)
snapshot("trees", trees[:3])
snapshot("last", trees[-1])
