"""PyTorch 1.13 versions of W1-W4: eager, and the same forward under torch.jit.script.

Written as a PyTorch user would: the forward pass and loss in torch ops, gradients by
autograd, the optimiser step under no_grad. Threads: torch.set_num_threads(2) and
OMP_WAIT_POLICY=passive (set by the harness) so nothing spins between runs.
"""
from typing import List, Tuple

import numpy as np
import torch
from torch import Tensor

torch.set_num_threads(2)


def rnn_loss(inputs: Tensor, targets: Tensor, hprev: Tensor, Wxh: Tensor, Whh: Tensor,
             Why: Tensor, bh: Tensor, by: Tensor) -> Tuple[Tensor, Tensor]:
    h = hprev
    loss = torch.zeros((), dtype=hprev.dtype)
    for t in range(inputs.size(0)):
        h = torch.tanh(Wxh[:, inputs[t]] + Whh @ h + bh)
        loss = loss - torch.log_softmax(Why @ h + by, 0)[targets[t]]
    return loss, h


def lstm_loss(inputs: Tensor, targets: Tensor, h: Tensor, c: Tensor, E: Tensor, Wx: Tensor,
              Wh: Tensor, b: Tensor, Wy: Tensor, by: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    H = Wh.size(0)
    x = E[inputs]
    hs: List[Tensor] = []
    for t in range(inputs.size(0)):
        a = x[t] @ Wx + h @ Wh + b
        i = torch.sigmoid(a[:, :H])
        f = torch.sigmoid(a[:, H:2 * H])
        o = torch.sigmoid(a[:, 2 * H:3 * H])
        g = torch.tanh(a[:, 3 * H:])
        c = f * c + i * g
        h = o * torch.tanh(c)
        hs.append(h)
    logits = torch.stack(hs).reshape(-1, H) @ Wy + by
    loss = torch.nn.functional.cross_entropy(logits, targets.reshape(-1))
    return loss, h, c


def mlp_loss(X: Tensor, y: Tensor, W1: Tensor, b1: Tensor, W2: Tensor, b2: Tensor,
             W3: Tensor, b3: Tensor) -> Tensor:
    a1 = torch.relu(X @ W1 + b1)
    a2 = torch.relu(a1 @ W2 + b2)
    return torch.nn.functional.cross_entropy(a2 @ W3 + b3, y)


def tree_loss(words: Tensor, lefts: List[int], rights: List[int], label: int, L: Tensor,
              W: Tensor, b: Tensor, U: Tensor, bu: Tensor) -> Tensor:
    """A tree in post-order: node k is a leaf when lefts[k] < 0, else it joins two earlier
    nodes. TorchScript cannot recurse over Python objects, so both versions use this."""
    hs: List[Tensor] = []
    for k in range(len(lefts)):
        if lefts[k] < 0:
            hs.append(L[words[k]])
        else:
            hs.append(torch.tanh(W @ torch.cat([hs[lefts[k]], hs[rights[k]]]) + b))
    logits = U @ hs[-1] + bu
    return -torch.log_softmax(logits, 0)[label]


def leaf(param):
    return torch.tensor(np.ascontiguousarray(param)).requires_grad_()


class TorchPeer:
    def __init__(self, ns, scripted):
        self.ns = ns
        self.scripted = scripted

    def compile(self, fn):
        return torch.jit.script(fn) if self.scripted else fn

    def info(self):
        return {"torch": torch.__version__, "threads": torch.get_num_threads()}


class CharRNN(TorchPeer):
    def __init__(self, ns, scripted):
        super().__init__(ns, scripted)
        self.loss = self.compile(rnn_loss)
        self.data_ix = torch.tensor([ns["char_to_ix"][ch] for ch in ns["data"]])
        self.params = [leaf(ns[k].reshape(ns[k].shape[0], -1).squeeze(1) if k in ("bh", "by")
                            else ns[k]) for k in ("Wxh", "Whh", "Why", "bh", "by")]
        self.mems = [torch.zeros_like(p) for p in self.params]
        self.hprev = torch.zeros(ns["hidden_size"], dtype=torch.float64)
        self.p, self.n = 0, 0

    def run(self, label):
        ns = self.ns
        T, lr = ns["seq_length"], ns["learning_rate"]
        for _ in range(ns["iterations"]):
            if self.p + T + 1 >= len(self.data_ix) or self.n == 0:
                self.hprev = torch.zeros_like(self.hprev)
                self.p = 0
            loss, h = self.loss(self.data_ix[self.p:self.p + T],
                                self.data_ix[self.p + 1:self.p + T + 1], self.hprev,
                                *self.params)
            loss.backward()
            with torch.no_grad():
                for param, mem in zip(self.params, self.mems):
                    g = param.grad.clamp_(-5, 5)
                    mem += g * g
                    param -= lr * g / torch.sqrt(mem + 1e-8)
                    param.grad = None
            self.hprev = h.detach()
            self.p += T
            self.n += 1

    def check(self):
        ns = self.ns
        T = ns["seq_length"]
        seq = self.data_ix[:T + 1]
        ref = ns["lossFun"](seq[:-1].tolist(), seq[1:].tolist(), np.zeros((ns["hidden_size"], 1)))
        fresh = [leaf(ns[k].ravel() if k in ("bh", "by") else ns[k])
                 for k in ("Wxh", "Whh", "Why", "bh", "by")]
        loss, _ = self.loss(seq[:-1], seq[1:], torch.zeros(ns["hidden_size"], dtype=torch.float64),
                            *fresh)
        loss.backward()
        assert np.isclose(loss.item(), ref[0], rtol=1e-10)
        for mine, theirs in zip(fresh, ref[1:6]):
            g = mine.grad.clamp(-5, 5).numpy()
            assert np.allclose(g, theirs.reshape(g.shape), rtol=1e-8, atol=1e-12)


class LSTM(TorchPeer):
    names = ("E", "Wx", "Wh", "b", "Wy", "by")

    def __init__(self, ns, scripted):
        super().__init__(ns, scripted)
        self.loss = self.compile(lstm_loss)
        self.params = [leaf(ns["params"][k]) for k in self.names]
        self.streams = torch.tensor(ns["streams"])
        self.h = torch.tensor(ns["h"])
        self.c = torch.tensor(ns["c"])
        self.position = 0

    def run(self, label):
        ns = self.ns
        T = ns["num_steps"]
        for _ in range(ns["iterations"]):
            if self.position + T + 1 > self.streams.shape[1]:
                self.position = 0
            inputs = self.streams[:, self.position:self.position + T].t()
            targets = self.streams[:, self.position + 1:self.position + T + 1].t()
            loss, h, c = self.loss(inputs, targets, self.h, self.c, *self.params)
            loss.backward()
            with torch.no_grad():
                norm = torch.sqrt(sum((p.grad * p.grad).sum() for p in self.params))
                scale = ns["learning_rate"] * min(1.0, ns["max_grad_norm"] / (norm.item() + 1e-6))
                for p in self.params:
                    p -= scale * p.grad
                    p.grad = None
            self.h, self.c = h.detach(), c.detach()
            self.position += T

    def check(self):
        ns = self.ns
        rng = np.random.default_rng(2)
        inputs = rng.integers(ns["vocab_size"], size=(4, 3))
        targets = rng.integers(ns["vocab_size"], size=(4, 3))
        h0 = rng.standard_normal((3, ns["hidden_size"])) * 0.1
        c0 = rng.standard_normal((3, ns["hidden_size"])) * 0.1
        p64 = {k: v.astype(np.float64) for k, v in ns["params"].items()}
        ref_loss, ref_grads, _, _ = ns["lstm_loss"](p64, inputs, targets, h0, c0)
        fresh = [leaf(p64[k]) for k in self.names]
        loss, _, _ = self.loss(torch.tensor(inputs), torch.tensor(targets), torch.tensor(h0),
                               torch.tensor(c0), *fresh)
        loss.backward()
        assert np.isclose(loss.item(), ref_loss, rtol=1e-10)
        for name, p in zip(self.names, fresh):
            assert np.allclose(p.grad.numpy(), ref_grads[name], rtol=1e-7, atol=1e-12), name


class MLP(TorchPeer):
    names = ("W1", "b1", "W2", "b2", "W3", "b3")

    def __init__(self, ns, scripted):
        super().__init__(ns, scripted)
        self.loss = self.compile(mlp_loss)
        self.params = {"f32": [leaf(ns["params32"][k]) for k in self.names],
                       "f64": [leaf(ns["params64"][k]) for k in self.names]}
        self.X = {"f32": torch.tensor(ns["X32"]), "f64": torch.tensor(ns["X64"])}
        self.y = torch.tensor(ns["y_all"])

    def run(self, label):
        ns = self.ns
        bs, params, X = ns["batch_size"], self.params[label], self.X[label]
        for k in range(ns["batches"]):
            loss = self.loss(X[k * bs:(k + 1) * bs], self.y[k * bs:(k + 1) * bs], *params)
            loss.backward()
            with torch.no_grad():
                for p in params:
                    p -= ns["learning_rate"] * p.grad
                    p.grad = None

    def check(self):
        ns = self.ns
        X, y = ns["X64"][:8], ns["y_all"][:8]
        p64 = {k: v.copy() for k, v in ns["params64"].items()}
        ref_loss, ref_grads = ns["mlp_loss"](p64, X, y)
        fresh = [leaf(p64[k]) for k in self.names]
        loss = self.loss(torch.tensor(X), torch.tensor(y), *fresh)
        loss.backward()
        assert np.isclose(loss.item(), ref_loss, rtol=1e-10)
        for name, p in zip(self.names, fresh):
            assert np.allclose(p.grad.numpy(), ref_grads[name], rtol=1e-7, atol=1e-12), name


def flatten_tree(root):
    """Post-order arrays (words, lefts, rights) of a tree of the workload's Node objects."""
    words, lefts, rights = [], [], []

    def visit(node):
        if node.is_leaf():
            words.append(node.word)
            lefts.append(-1)
            rights.append(-1)
        else:
            left, right = visit(node.left), visit(node.right)
            words.append(0)
            lefts.append(left)
            rights.append(right)
        return len(words) - 1

    visit(root)
    return torch.tensor(words), lefts, rights


class TreeRNN(TorchPeer):
    names = ("L", "W", "b", "U", "bu")

    def __init__(self, ns, scripted):
        super().__init__(ns, scripted)
        self.loss = self.compile(tree_loss)
        self.params = [leaf(ns["params"][k]) for k in self.names]
        self.trees = [flatten_tree(t) for t in ns["trees"]]

    def run(self, label):
        lr = self.ns["learning_rate"]
        for (words, lefts, rights), label_ in zip(self.trees, self.ns["labels"]):
            loss = self.loss(words, lefts, rights, label_, *self.params)
            loss.backward()
            with torch.no_grad():
                for p in self.params:
                    p -= lr * p.grad
                    p.grad = None

    def check(self):
        ns = self.ns
        ref_loss, ref_grads = ns["tree_loss"](ns["trees"][0], ns["labels"][0], ns["params"])
        fresh = [leaf(ns["params"][k]) for k in self.names]
        loss = self.loss(*self.trees[0], ns["labels"][0], *fresh)
        loss.backward()
        assert np.isclose(loss.item(), ref_loss, rtol=1e-10)
        for name, p in zip(self.names[1:], fresh[1:]):
            assert np.allclose(p.grad.numpy(), ref_grads[name], rtol=1e-7, atol=1e-12), name
        for word, g in ref_grads["L"].items():
            assert np.allclose(fresh[0].grad[word].numpy(), g, rtol=1e-7, atol=1e-12)


def make(workload_id, peer, ns):
    impl = {"W1": CharRNN, "W2": LSTM, "W3": MLP, "W4": TreeRNN}[workload_id]
    return impl(ns, scripted=(peer == "torchscript"))
