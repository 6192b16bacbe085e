# Recursion over tree objects (JANUS's TreeRNN in NumPy): the root's vector of a
# recursive network over random binary trees of different shapes. The recursion
# becomes one graph (a loop over the nodes in post-order, the tree read at every
# call), reused for every shape; a one-leaf tree (whose result is a view of the
# embedding table in CPython) runs in CPython.
# expect: compiled encode
import numpy as np
from _probe import snapshot, call


rng = np.random.default_rng(7)
embed, vocab = 8, 30


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.word, self.left, self.right = word, left, right

    def is_leaf(self):
        return self.word is not None


def random_tree(n_leaves):
    if n_leaves == 1:
        return Node(word=int(rng.integers(vocab)))
    k = int(rng.integers(1, n_leaves))
    return Node(left=random_tree(k), right=random_tree(n_leaves - k))


params = {
    "L": rng.standard_normal((vocab, embed)) * 0.5,
    "W": rng.standard_normal((embed, 2 * embed)) * 0.5,
    "b": rng.standard_normal(embed) * 0.1,
}


def encode(node, p):
    if node.is_leaf():
        return p["L"][node.word]
    h = np.concatenate([encode(node.left, p), encode(node.right, p)])
    return np.tanh(p["W"] @ h + p["b"])


trees = [random_tree(int(rng.integers(2, 12))) for _ in range(24)]
for i, t in enumerate(trees):
    call(f"encode{i}", encode, t, params)
leaf = Node(word=3)
call("encode_leaf", encode, leaf, params)
call("encode_again", encode, trees[0], params)
