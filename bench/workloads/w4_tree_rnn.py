# %% [markdown]
# # W4: recursive TreeRNN over Python node objects
# Random binary trees of `Node` objects, word embeddings of size 64 at the leaves,
# h = tanh(W [h_left; h_right] + b) at inner nodes, a softmax over 5 classes at the root;
# recursive forward and backward, SGD one tree at a time.

# %% setup
import os
import sys

import numpy as np

QUICK = os.environ.get("SPECULA_BENCH_QUICK") == "1" or "--quick" in sys.argv[1:]

embed_size, vocab_size, num_classes = 64, 500, 5
num_trees = 10 if QUICK else 100
learning_rate = 0.01

rng = np.random.default_rng(0)


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.word, self.left, self.right = word, left, right
        self.h = None

    def is_leaf(self):
        return self.word is not None


def random_tree(n_leaves):
    if n_leaves == 1:
        return Node(word=int(rng.integers(vocab_size)))
    k = int(rng.integers(1, n_leaves))
    return Node(left=random_tree(k), right=random_tree(n_leaves - k))


tree_sizes = [int(rng.integers(10, 41)) for _ in range(num_trees)]
trees = [random_tree(leaves) for leaves in tree_sizes]
labels = [int(rng.integers(num_classes)) for _ in range(num_trees)]

params = {
    "L": rng.standard_normal((vocab_size, embed_size)) * 0.1,
    "W": rng.standard_normal((embed_size, 2 * embed_size)) * 0.1,
    "b": np.zeros(embed_size),
    "U": rng.standard_normal((num_classes, embed_size)) * 0.1,
    "bu": np.zeros(num_classes),
}


def forward(node, p):
    if node.is_leaf():
        node.h = p["L"][node.word]
    else:
        forward(node.left, p)
        forward(node.right, p)
        node.children = np.concatenate([node.left.h, node.right.h])
        node.h = np.tanh(p["W"] @ node.children + p["b"])


def backward(node, dh, p, grads):
    if node.is_leaf():
        if node.word in grads["L"]:
            grads["L"][node.word] += dh
        else:
            grads["L"][node.word] = dh.copy()
        return
    dz = dh * (1 - node.h * node.h)
    grads["W"] += np.outer(dz, node.children)
    grads["b"] += dz
    dchildren = p["W"].T @ dz
    backward(node.left, dchildren[:embed_size], p, grads)
    backward(node.right, dchildren[embed_size:], p, grads)


def tree_loss(root, label, p):
    """Cross-entropy at the root and the gradients (embedding gradients by word)."""
    forward(root, p)
    logits = p["U"] @ root.h + p["bu"]
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    loss = -np.log(probs[label])
    dlogits = probs.copy()
    dlogits[label] -= 1
    grads = {"U": np.outer(dlogits, root.h), "bu": dlogits,
             "W": np.zeros_like(p["W"]), "b": np.zeros_like(p["b"]), "L": {}}
    backward(root, p["U"].T @ dlogits, p, grads)
    return loss, grads


# %% check
# Central-difference gradient check on one tree, a few entries of every parameter; the
# embedding entries are taken from words that occur in the tree.
def leaf_words(node):
    return [node.word] if node.is_leaf() else leaf_words(node.left) + leaf_words(node.right)


check_tree, check_label = trees[0], labels[0]
_, check_grads = tree_loss(check_tree, check_label, params)
check_rng = np.random.default_rng(1)
mismatches = []
for name, param in params.items():
    for _ in range(5):
        if name == "L":
            ri = (int(check_rng.choice(leaf_words(check_tree))), int(check_rng.integers(embed_size)))
            analytic = check_grads["L"][ri[0]][ri[1]]
        else:
            ri = tuple(int(check_rng.integers(s)) for s in param.shape)
            analytic = check_grads[name][ri]
        old = param[ri]
        param[ri] = old + 1e-6
        plus = tree_loss(check_tree, check_label, params)[0]
        param[ri] = old - 1e-6
        minus = tree_loss(check_tree, check_label, params)[0]
        param[ri] = old
        numeric = (plus - minus) / 2e-6
        if abs(analytic - numeric) > 1e-7 + 1e-4 * abs(numeric):
            mismatches.append((name, ri, analytic, numeric))
assert not mismatches, f"gradient check failed: {mismatches}"

# %% timed
# One epoch of SGD over the trees.
total_loss = 0.0
for root, label in zip(trees, labels):
    loss, grads = tree_loss(root, label, params)
    total_loss += loss
    for name in ("W", "b", "U", "bu"):
        params[name] -= learning_rate * grads[name]
    for word, g in grads["L"].items():
        params["L"][word] -= learning_rate * g
