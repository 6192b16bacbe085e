"""The function-level benchmark's workloads: plain NumPy functions called in a
loop, as a training script calls them. Each workload is built from a seed
(same data in every process) and exposes run(n) (n calls) and state() (bytes
that must be identical with the engine on and off)."""
import numpy as np


# --- a NumPy MLP training step: forward, softmax cross-entropy, backward, SGD
def mlp_step(p, x, y_onehot, lr):
    h_pre = x @ p["W1"] + p["b1"]
    h = np.maximum(h_pre, 0.0)
    logits = h @ p["W2"] + p["b2"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    probs = e / e.sum(axis=1, keepdims=True)
    n = x.shape[0]
    loss = -(np.log(probs + 1e-12) * y_onehot).sum() / n
    d_logits = (probs - y_onehot) / n
    dW2 = h.T @ d_logits
    db2 = d_logits.sum(axis=0)
    dh = d_logits @ p["W2"].T
    dh_pre = np.where(h_pre > 0.0, dh, 0.0)
    dW1 = x.T @ dh_pre
    db1 = dh_pre.sum(axis=0)
    p["W1"] -= lr * dW1
    p["b1"] -= lr * db1
    p["W2"] -= lr * dW2
    p["b2"] -= lr * db2
    return loss


class mlp:
    title = "MLP training step (batch 32, 64-128-10, float64)"

    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        self.p = {"W1": rng.standard_normal((64, 128)) * 0.1, "b1": np.zeros(128),
                  "W2": rng.standard_normal((128, 10)) * 0.1, "b2": np.zeros(10)}
        self.x = rng.standard_normal((32, 64))
        self.y = np.eye(10)[rng.integers(0, 10, 32)]
        self.loss = 0.0

    def run(self, n):
        for _ in range(n):
            self.loss = mlp_step(self.p, self.x, self.y, 0.05)

    def state(self):
        return b"".join(self.p[k].tobytes() for k in sorted(self.p)) + np.float64(self.loss).tobytes()


# --- a small vanilla RNN step (min-char-rnn's forward step), state carried
def rnn_step(m, x):
    h = np.tanh(m.Wxh @ x + m.Whh @ m.h + m.bh)
    y = m.Why @ h + m.by
    e = np.exp(y - y.max())
    m.h = h
    return e / e.sum()


class rnn_model:
    pass


class rnn:
    title = "RNN step (hidden 64, vocab 32, one-hot input, float64)"

    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        m = rnn_model()
        m.Wxh = rng.standard_normal((64, 32)) * 0.01
        m.Whh = rng.standard_normal((64, 64)) * 0.01
        m.Why = rng.standard_normal((32, 64)) * 0.01
        m.bh = np.zeros((64, 1))
        m.by = np.zeros((32, 1))
        m.h = np.zeros((64, 1))
        self.m = m
        self.inputs = [np.eye(32)[:, [i % 32]] for i in range(25)]
        self.p = None

    def run(self, n):
        for i in range(n):
            self.p = rnn_step(self.m, self.inputs[i % 25])

    def state(self):
        return self.m.h.tobytes() + self.p.tobytes()


# --- pure-Python, call-heavy code the engine never compiles
def fib(k):
    return k if k < 2 else fib(k - 1) + fib(k - 2)


def tokens(text):
    return [w.strip(".,").lower() for w in text.split()]


def count(words, table):
    for w in words:
        table[w] = table.get(w, 0) + 1
    return table


class pure:
    title = "pure-Python calls, never compiled (fib(16), word counts)"

    TEXT = "the quick brown fox jumps over the lazy dog, then the dog sleeps. " * 4

    def __init__(self, seed=0):
        self.total = 0
        self.table = {}

    def run(self, n):
        for _ in range(n):
            self.total += fib(16)
            count(tokens(self.TEXT), self.table)

    def state(self):
        return repr((self.total, sorted(self.table.items()))).encode()


WORKLOADS = {"mlp": mlp, "rnn": rnn, "pure": pure}
