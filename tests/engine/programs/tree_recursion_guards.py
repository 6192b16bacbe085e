# Recursion over tree objects whose trees break the graph's assumptions after it
# was compiled: a node of another class (same attributes and methods) in the
# middle of a tree, an instance that shadows the method, a subtree shared by two
# parents, a leaf whose child attribute points back at the root (CPython never
# follows it: the recursion stops at the leaf), a word that is not an int, the
# method rebound on the class.
# Every one must run in CPython, never in a stale graph.
# expect: compiled score
import numpy as np
from _probe import snapshot, call

rng = np.random.default_rng(11)
embed, vocab = 6, 20


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.word, self.left, self.right = word, left, right

    def is_leaf(self):
        return self.word is not None


class OtherNode:
    def __init__(self, word=None, left=None, right=None):
        self.word, self.left, self.right = word, left, right

    def is_leaf(self):
        return self.word is not None and self.word % 2 == 0


def random_tree(n_leaves, cls=Node):
    if n_leaves == 1:
        return cls(word=int(rng.integers(vocab)))
    k = int(rng.integers(1, n_leaves))
    return Node(left=random_tree(k, cls), right=random_tree(n_leaves - k, cls))


L = rng.standard_normal((vocab, embed))
W = rng.standard_normal((embed, 2 * embed)) * 0.4


def score(node, emb, w):
    if node.is_leaf():
        return emb[node.word] * 2.0
    both = np.concatenate([score(node.left, emb, w), score(node.right, emb, w)])
    return np.tanh(w @ both)


for i in range(20):
    call(f"plain{i}", score, random_tree(int(rng.integers(2, 9))), L, W)

mixed = random_tree(6, OtherNode)
call("other_class", score, mixed, L, W)
call("plain_after_other", score, random_tree(5), L, W)

shadow = random_tree(4)
shadow.left.is_leaf = lambda: True
call("shadowed_method", score, shadow, L, W)

shared_leaf = Node(word=4)
shared = Node(left=Node(left=shared_leaf, right=Node(word=1)), right=shared_leaf)
call("shared_subtree", score, shared, L, W)

looped = random_tree(5)
leaf = looped
while leaf.word is None:
    leaf = leaf.right
leaf.left = looped
call("leaf_points_at_root", score, looped, L, W)

odd = random_tree(3)
odd.left.word = 2.0  # CPython indexes with a float: IndexError
call("float_word", score, odd, L, W)
odd.left.word = vocab + 5  # out of range: IndexError
call("word_out_of_range", score, odd, L, W)
odd.left.word = -3  # negative words index from the end
call("negative_word", score, odd, L, W)

half = Node(left=Node(word=1))  # no right child: AttributeError on None
call("missing_child", score, half, L, W)

Node.is_leaf = lambda self: self.left is None
call("method_rebound", score, random_tree(7), L, W)
call("plain_end", score, random_tree(8), L, W)
