# Recursion over tree objects that stores per-node results on the nodes (W4's
# TreeRNN forward): `node.h = ...` and `node.children = ...` on every node, no
# return value. The graph's loop carries one table per attribute; the commit sets
# the attributes node by node in post-order. A leaf's `node.h = L[word]` must be a
# view of L (its base is L, a later write to L shows through it), inner nodes get
# arrays of their own. Trees of every shape class: one leaf, left-deep,
# right-deep, random; a tree that changes between calls; a node reached twice
# (must run in CPython); a bad word in the middle of a tree (IndexError: the
# graph writes nothing, CPython then raises after its own partial writes).
# expect: compiled forward, mark, partial
import numpy as np
from _probe import snapshot, call

rng = np.random.default_rng(5)
embed, vocab = 8, 40


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.word, self.left, self.right = word, left, right
        self.h = None

    def is_leaf(self):
        return self.word is not None


def random_tree(n_leaves):
    if n_leaves == 1:
        return Node(word=int(rng.integers(vocab)))
    k = int(rng.integers(1, n_leaves))
    return Node(left=random_tree(k), right=random_tree(n_leaves - k))


def left_deep(n):
    t = Node(word=int(rng.integers(vocab)))
    for _ in range(n - 1):
        t = Node(left=t, right=Node(word=int(rng.integers(vocab))))
    return t


def right_deep(n):
    t = Node(word=int(rng.integers(vocab)))
    for _ in range(n - 1):
        t = Node(left=Node(word=int(rng.integers(vocab))), right=t)
    return t


params = {
    "L": rng.standard_normal((vocab, embed)) * 0.5,
    "W": rng.standard_normal((embed, 2 * embed)) * 0.5,
    "b": rng.standard_normal(embed) * 0.1,
}


def forward(node, p):
    if node.is_leaf():
        node.h = p["L"][node.word]
    else:
        forward(node.left, p)
        forward(node.right, p)
        node.children = np.concatenate([node.left.h, node.right.h])
        node.h = np.tanh(p["W"] @ node.children + p["b"])


def nodes_of(t):
    out, stack = [], [t]
    while stack:
        n = stack.pop()
        out.append(n)
        if n.word is None:
            stack += [n.right, n.left]
    return out


def record(name, t):
    # Every node's attributes, in their __dict__ order, with the leaves' views of L.
    snapshot(name, [(list(vars(n)), n.h, getattr(n, "children", None),
                     n.h is not None and n.h.base is params["L"],
                     n.h is not None and bool(np.shares_memory(n.h, params["L"])),
                     n.h is not None and n.h.flags.owndata) for n in nodes_of(t)])


trees = [random_tree(int(rng.integers(2, 14))) for _ in range(20)]
trees += [left_deep(6), right_deep(7), left_deep(2)]
for i, t in enumerate(trees):
    call(f"forward{i}", forward, t, params)
    record(f"nodes{i}", t)

leaf = Node(word=4)
call("forward_leaf", forward, leaf, params)
record("leaf", leaf)

# A later write to L shows through the leaves' views, not through inner nodes.
t = trees[0]
params["L"][t.left.word if t.left.word is not None else 0] += 1.0
params["L"] *= 1.5
record("after_L_write", t)

# The tree changes between calls: a subtree replaced, a leaf's word changed.
t = trees[1]
t.right = random_tree(5)
call("changed_tree", forward, t, params)
record("changed_tree_nodes", t)
for n in nodes_of(t):
    if n.word is not None:
        n.word = (n.word + 7) % vocab
call("changed_words", forward, t, params)
record("changed_words_nodes", t)

# A node reached twice (a DAG): CPython's calls visit it twice.
shared = random_tree(3)
dag = Node(left=shared, right=Node(left=random_tree(2), right=shared))
call("dag", forward, dag, params)
snapshot("dag_h", dag.h)

# A word out of range in the middle of the tree: CPython raises IndexError after
# setting the attributes of the nodes it finished; the graph's run commits none.
bad = random_tree(9)
nodes_of(bad)[-1].word = vocab + 3
call("bad_word", forward, bad, params)
record("bad_word_nodes", bad)
call("after_bad", forward, random_tree(6), params)


# An attribute set on some paths only: a child's row is read only where its call
# set it (else the graph exits and CPython runs: AttributeError, or the value an
# earlier call left), and the node's own attribute is only read on paths that set it.
def mark(node, p):
    if node.is_leaf():
        node.m = p["L"][node.word] * 2.0
    else:
        mark(node.left, p)
        mark(node.right, p)
        node.s = np.tanh(node.left.m)
        node.m = node.s * 0.5


def partial(node, p):
    if node.is_leaf():
        node.q = p["L"][node.word] + 1.0
    else:
        partial(node.left, p)
        partial(node.right, p)
        node.r = np.concatenate([node.left.q, node.right.q])


for i in range(24):
    t = random_tree(int(rng.integers(1, 9)))
    call(f"mark{i}", mark, t, params)
    snapshot(f"mark_nodes{i}", [(list(vars(n)), getattr(n, "m", None), getattr(n, "s", None))
                                for n in nodes_of(t)])
    call(f"partial{i}", partial, t, params)
    snapshot(f"partial_nodes{i}", [(list(vars(n)), getattr(n, "q", None), getattr(n, "r", None))
                                   for n in nodes_of(t)])
