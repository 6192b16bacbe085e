# A non-recursive caller of a recursion over tree objects (W4's tree_loss calling
# forward): the recursion's loop is built inside the caller's graph, rooted at the
# object the caller passes (an argument or an attribute of one), its node
# attribute writes committed as one of the caller's effects in program order, and
# the root's attributes read back after the call from the root's row. Covered:
# state mutated before and after the call, the root's attribute read after it,
# trees whose shape changes between calls, a recursion returning arrays, two
# recursions in one caller, a shared node (must run in CPython), a bad word in the
# middle of a tree (nothing of the graph's run committed; CPython raises after its
# partial writes), a raise in the caller after the call, an attribute set on some
# paths only read on the root, a caller that writes a field the walk reads before
# the call, and a caller returning the root's attribute itself (its identity).
# expect: compiled score, score_holder, encode_loss, two_trees, raise_after, mark_root
import numpy as np
from _probe import snapshot, call

rng = np.random.default_rng(11)
embed, vocab, classes = 6, 30, 3


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.word, self.left, self.right = word, left, right
        self.h = None

    def is_leaf(self):
        return self.word is not None


class State:
    def __init__(self):
        self.before = None
        self.after = None


class Holder:
    def __init__(self, tree):
        self.tree = tree


def random_tree(n_leaves):
    if n_leaves == 1:
        return Node(word=int(rng.integers(vocab)))
    k = int(rng.integers(1, n_leaves))
    return Node(left=random_tree(k), right=random_tree(n_leaves - k))


def nodes_of(t):
    out, stack = [], [t]
    while stack:
        n = stack.pop()
        out.append(n)
        if n.word is None:
            stack += [n.right, n.left]
    return out


params = {
    "L": rng.standard_normal((vocab, embed)) * 0.5,
    "W": rng.standard_normal((embed, 2 * embed)) * 0.5,
    "b": rng.standard_normal(embed) * 0.1,
    "U": rng.standard_normal((classes, embed)) * 0.5,
    "bu": np.zeros(classes),
}


def forward(node, p):
    if node.is_leaf():
        node.h = p["L"][node.word]
    else:
        forward(node.left, p)
        forward(node.right, p)
        node.children = np.concatenate([node.left.h, node.right.h])
        node.h = np.tanh(p["W"] @ node.children + p["b"])


def score(root, p, state):
    state.before = p["b"] * 2.0
    forward(root, p)
    logits = p["U"] @ root.h + p["bu"]
    state.after = logits * 0.5
    return logits - logits.max()


def score_holder(holder, p):
    forward(holder.tree, p)
    return np.tanh(p["U"] @ holder.tree.h)


def encode(node, emb, w):
    if node.is_leaf():
        return emb[node.word]
    h = np.concatenate([encode(node.left, emb, w), encode(node.right, emb, w)])
    return np.tanh(w @ h)


def encode_loss(root, p):
    h = encode(root, p["L"], p["W"])
    return float((h * h).sum())


def two_trees(a, b, p):
    forward(a, p)
    forward(b, p)
    return a.h - b.h


def raise_after(root, p, limit):
    forward(root, p)
    total = float(np.abs(root.h).sum())
    if total > limit:
        raise ValueError("activation too large")
    return total


def mark(node, p):
    if node.is_leaf():
        node.m = p["L"][node.word] * 2.0
    else:
        mark(node.left, p)
        mark(node.right, p)
        if node.left.is_leaf():
            node.m = node.left.m * 0.5


def mark_root(root, p):
    mark(root, p)
    return root.m + 1.0


def rewrite_then_forward(root, p):
    root.word = None
    forward(root, p)
    return root.h * 1.0


def hand_out(root, p):
    forward(root, p)
    return root.h


def record(name, t):
    snapshot(name, [(list(vars(n)), n.h, getattr(n, "children", None),
                     n.h is not None and n.h.base is params["L"]) for n in nodes_of(t)])


state = State()
trees = [random_tree(int(rng.integers(1, 12))) for _ in range(16)]
for i, t in enumerate(trees):
    call(f"score{i}", score, t, params, state)
    snapshot(f"state{i}", (state.before, state.after))
    record(f"score_nodes{i}", t)

# The tree changes between calls: a subtree replaced, words changed.
t = trees[3]
t.right = random_tree(4) if t.word is None else None
if t.word is None:
    call("changed_shape", score, t, params, state)
    record("changed_shape_nodes", t)
for n in nodes_of(trees[4]):
    if n.word is not None:
        n.word = (n.word + 5) % vocab
call("changed_words", score, trees[4], params, state)
record("changed_words_nodes", trees[4])

for i in range(6):
    holder = Holder(random_tree(int(rng.integers(1, 9))))
    call(f"holder{i}", score_holder, holder, params)
    record(f"holder_nodes{i}", holder.tree)

for i in range(8):
    call(f"encode_loss{i}", encode_loss, random_tree(int(rng.integers(1, 10))), params)

for i in range(8):
    a, b = random_tree(int(rng.integers(1, 8))), random_tree(int(rng.integers(1, 8)))
    call(f"two{i}", two_trees, a, b, params)
    record(f"two_a{i}", a)
    record(f"two_b{i}", b)
# The same tree twice: the second recursion writes every node again.
same = random_tree(5)
call("two_same", two_trees, same, same, params)
record("two_same_nodes", same)

for i in range(8):
    t = random_tree(int(rng.integers(1, 9)))
    call(f"raise_after{i}", raise_after, t, params, 2.5)
    record(f"raise_after_nodes{i}", t)

# The first tree inside the second: the second recursion overwrites the first
# root's attribute, so the caller's read of it runs in CPython.
inner = random_tree(3)
call("two_nested", two_trees, inner, Node(left=inner, right=random_tree(2)), params)
record("two_nested_nodes", inner)

# A node reached twice: the walk refuses, CPython runs the caller.
shared = random_tree(3)
dag = Node(left=shared, right=Node(left=random_tree(2), right=shared))
call("dag", score, dag, params, state)
snapshot("dag_state", (state.before, state.after, dag.h))

# A word out of range in the middle of the tree: CPython raises IndexError after
# setting the attributes of the nodes it finished and state.before; the graph's
# run commits none of it.
bad = random_tree(7)
nodes_of(bad)[-1].word = vocab + 2
state.before = None
call("bad_word", score, bad, params, state)
snapshot("bad_state", (state.before, state.after))
record("bad_word_nodes", bad)
call("after_bad", score, random_tree(5), params, state)

# The root's attribute set on some paths only: a root whose left child is not a
# leaf keeps what it held before (here: no attribute, AttributeError in CPython).
for i in range(10):
    t = random_tree(int(rng.integers(1, 8)))
    call(f"mark_root{i}", mark_root, t, params)
    snapshot(f"mark_nodes{i}", [(list(vars(n)), getattr(n, "m", None)) for n in nodes_of(t)])

# Must stay exact however they convert: a field the walk reads set by the caller
# first, and the root's attribute handed out itself.
for i in range(4):
    t = random_tree(int(rng.integers(2, 7)))
    call(f"rewrite{i}", rewrite_then_forward, t, params)
    record(f"rewrite_nodes{i}", t)
    t = random_tree(int(rng.integers(1, 7)))
    out = call(f"hand_out{i}", hand_out, t, params)
    snapshot(f"hand_out_is{i}", out is t.h)

# An inner node missing a child: CPython raises AttributeError where forward reads
# it, after setting the attributes of the nodes it finished; the walk refuses the
# tree (the check the loop body no longer makes per node), for the caller and for
# forward called alone.
for i in range(3):
    broken = random_tree(int(rng.integers(3, 8)))
    victim = [n for n in nodes_of(broken) if n.word is None][-1]
    victim.right = None
    state.before = None
    call(f"broken_caller{i}", score, broken, params, state)
    snapshot(f"broken_state{i}", (state.before, state.after, broken.h, victim.h,
                                  getattr(victim.left, "h", None)))
    call(f"broken_forward{i}", forward, broken, params)
    snapshot(f"broken_forward_h{i}", (broken.h, getattr(victim.left, "h", None)))
