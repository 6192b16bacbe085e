"""Numba @njit versions of W1 (char-RNN), W3 (MLP) and W5 (heat stencil).

Whole training epochs are compiled, as a Numba user would write them; matrix products
go through Numba's BLAS binding. Compile time shows up as the first run's extra time
(the harness points NUMBA_CACHE_DIR at a fresh directory for full runs).
"""
import numba
import numpy as np
from numba import njit


@njit(cache=True)
def clip_(g):
    np.minimum(np.maximum(g, -5.0, g), 5.0, g)


@njit(cache=True)
def adagrad_(param, grad, mem, lr):
    mem += grad * grad
    param -= lr * grad / np.sqrt(mem + 1e-8)


@njit(cache=True)
def rnn_loss(inputs, targets, hprev, Wxh, Whh, Why, bh, by, dWxh, dWhh, dWhy, dbh, dby):
    T, H, V = len(inputs), hprev.shape[0], Why.shape[0]
    hs = np.zeros((T + 1, H))
    ps = np.zeros((T, V))
    hs[0] = hprev
    loss = 0.0
    for t in range(T):
        hs[t + 1] = np.tanh(Wxh[:, inputs[t]] + Whh @ hs[t] + bh)
        e = np.exp(Why @ hs[t + 1] + by)
        ps[t] = e / e.sum()
        loss -= np.log(ps[t, targets[t]])
    dWxh[:] = 0.0
    dWhh[:] = 0.0
    dWhy[:] = 0.0
    dbh[:] = 0.0
    dby[:] = 0.0
    dhnext = np.zeros(H)
    for t in range(T - 1, -1, -1):
        dy = ps[t].copy()
        dy[targets[t]] -= 1.0
        dWhy += np.outer(dy, hs[t + 1])
        dby += dy
        dh = Why.T @ dy + dhnext
        dhraw = (1.0 - hs[t + 1] * hs[t + 1]) * dh
        dbh += dhraw
        dWxh[:, inputs[t]] += dhraw
        dWhh += np.outer(dhraw, hs[t])
        dhnext = Whh.T @ dhraw
    clip_(dWxh)
    clip_(dWhh)
    clip_(dWhy)
    clip_(dbh)
    clip_(dby)
    return loss, hs[T].copy()


@njit(cache=True)
def rnn_epoch(data_ix, state, hprev, Wxh, Whh, Why, bh, by, mWxh, mWhh, mWhy, mbh, mby,
              iterations, seq_length, lr):
    """state = [p, n, smooth_loss], carried between epochs like the notebook's globals."""
    dWxh, dWhh, dWhy = np.zeros_like(Wxh), np.zeros_like(Whh), np.zeros_like(Why)
    dbh, dby = np.zeros_like(bh), np.zeros_like(by)
    p, n, smooth = int(state[0]), int(state[1]), state[2]
    for _ in range(iterations):
        if p + seq_length + 1 >= len(data_ix) or n == 0:
            hprev[:] = 0.0
            p = 0
        loss, h = rnn_loss(data_ix[p:p + seq_length], data_ix[p + 1:p + seq_length + 1],
                           hprev, Wxh, Whh, Why, bh, by, dWxh, dWhh, dWhy, dbh, dby)
        hprev[:] = h
        smooth = smooth * 0.999 + loss * 0.001
        adagrad_(Wxh, dWxh, mWxh, lr)
        adagrad_(Whh, dWhh, mWhh, lr)
        adagrad_(Why, dWhy, mWhy, lr)
        adagrad_(bh, dbh, mbh, lr)
        adagrad_(by, dby, mby, lr)
        p += seq_length
        n += 1
    state[0], state[1], state[2] = p, n, smooth


class CharRNN:
    def __init__(self, ns):
        self.ns = ns
        self.data_ix = np.array([ns["char_to_ix"][ch] for ch in ns["data"]], dtype=np.int64)
        self.params = [ns["Wxh"].copy(), ns["Whh"].copy(), ns["Why"].copy(),
                       ns["bh"].ravel().copy(), ns["by"].ravel().copy()]
        self.mems = [np.zeros_like(a) for a in self.params]
        self.hprev = np.zeros(ns["hidden_size"])
        self.state = np.array([0.0, 0.0, ns["smooth_loss"]])

    def run(self, label):
        ns = self.ns
        rnn_epoch(self.data_ix, self.state, self.hprev, *self.params, *self.mems,
                  ns["iterations"], ns["seq_length"], ns["learning_rate"])

    def check(self):
        ns = self.ns
        seq = self.data_ix[:ns["seq_length"] + 1]
        h0 = np.zeros((ns["hidden_size"], 1))
        ref = ns["lossFun"](list(seq[:-1]), list(seq[1:]), h0)
        fresh = [ns["Wxh"], ns["Whh"], ns["Why"], ns["bh"].ravel(), ns["by"].ravel()]
        grads = [np.zeros_like(a) for a in fresh]
        loss, _ = rnn_loss(seq[:-1], seq[1:], h0.ravel(), *fresh, *grads)
        assert np.isclose(loss, ref[0], rtol=1e-10), (loss, ref[0])
        for mine, theirs in zip(grads, ref[1:6]):
            assert np.allclose(mine, theirs.reshape(mine.shape), rtol=1e-8, atol=1e-12)


@njit(cache=True)
def mlp_epoch(params, X, y, batch_size, batches, lr):
    W1, b1, W2, b2, W3, b3 = params
    loss = 0.0
    for k in range(batches):
        xb = X[k * batch_size:(k + 1) * batch_size]
        yb = y[k * batch_size:(k + 1) * batch_size]
        n = xb.shape[0]
        z1 = xb @ W1 + b1
        a1 = np.maximum(z1, 0)
        z2 = a1 @ W2 + b2
        a2 = np.maximum(z2, 0)
        logits = a2 @ W3 + b3
        d3 = np.empty_like(logits)
        loss = 0.0
        for i in range(n):
            m = logits[i].max()
            e = np.exp(logits[i] - m)
            s = e.sum()
            d3[i] = e / s
            loss -= np.log(d3[i, yb[i]])
            d3[i, yb[i]] -= 1
        d3 /= n
        loss /= n
        gW3 = a2.T @ d3
        d2 = (d3 @ W3.T) * (z2 > 0)
        gW2 = a1.T @ d2
        d1 = (d2 @ W2.T) * (z1 > 0)
        gW1 = xb.T @ d1
        W3 -= lr * gW3
        b3 -= lr * d3.sum(axis=0)
        W2 -= lr * gW2
        b2 -= lr * d2.sum(axis=0)
        W1 -= lr * gW1
        b1 -= lr * d1.sum(axis=0)
    return loss


class MLP:
    def __init__(self, ns):
        self.ns = ns
        names = ["W1", "b1", "W2", "b2", "W3", "b3"]
        self.params = {"f32": tuple(ns["params32"][k].copy() for k in names),
                       "f64": tuple(ns["params64"][k].copy() for k in names)}
        self.X = {"f32": ns["X32"], "f64": ns["X64"]}
        self.start = {key: tuple(a.copy() for a in p) for key, p in self.params.items()}

    def run(self, label):
        ns = self.ns
        dtype = self.params[label][0].dtype
        mlp_epoch(self.params[label], self.X[label], ns["y_all"], ns["batch_size"],
                  ns["batches"], dtype.type(ns["learning_rate"]))

    def check(self):
        # One step from the same start must reproduce the NumPy step.
        ns = self.ns
        p = tuple(a.copy() for a in self.start["f64"])
        names = ["W1", "b1", "W2", "b2", "W3", "b3"]
        ref = dict(zip(names, (a.copy() for a in p)))
        bs = ns["batch_size"]
        _, grads = ns["mlp_loss"](ref, ns["X64"][:bs], ns["y_all"][:bs])
        mlp_epoch(p, ns["X64"], ns["y_all"], bs, 1, ns["learning_rate"])
        for name, mine in zip(names, p):
            expected = ref[name] - ns["learning_rate"] * grads[name]
            assert np.allclose(mine, expected, rtol=1e-9, atol=1e-12), name


@njit(cache=True)
def heat_steps(u, u_new, alpha, steps):
    rows, cols = u.shape
    for _ in range(steps):
        for i in range(1, rows - 1):
            for j in range(1, cols - 1):
                u_new[i, j] = u[i, j] + alpha * (
                    u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1] - 4 * u[i, j])
        u, u_new = u_new, u
    return u, u_new


class Heat:
    def __init__(self, ns):
        self.ns = ns
        self.u = ns["u"].copy()
        self.u_new = ns["u_new"].copy()

    def run(self, label):
        self.u, self.u_new = heat_steps(self.u, self.u_new, self.ns["alpha"], self.ns["steps"])

    def check(self):
        ns = self.ns
        a, a_new = ns["initial_grid"](64), ns["initial_grid"](64)
        b, b_new = a.copy(), a_new.copy()
        for _ in range(3):
            ns["heat_step"](a, a_new, ns["alpha"])
            a, a_new = a_new, a
        b, _ = heat_steps(b, b_new, ns["alpha"], 3)
        assert np.allclose(a, b, rtol=1e-13, atol=1e-15)


class Peer:
    def __init__(self, impl):
        self.impl = impl

    def run(self, label):
        self.impl.run(label)

    def check(self):
        self.impl.check()

    def info(self):
        return {"numba": numba.__version__}


def make(workload_id, peer, ns):
    impl = {"W1": CharRNN, "W3": MLP, "W5": Heat}[workload_id]
    return Peer(impl(ns))
