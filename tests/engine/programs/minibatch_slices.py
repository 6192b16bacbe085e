# Minibatches sliced by a counter that changes on every call,
# `X[i * bs:(i + 1) * bs]`: NumPy makes the view before each run (a computed
# slice source), so one graph serves every i; the short last batch changes the
# view's shape (a guard miss); a returned view is the caller's array's view
# (its base is X, as in CPython); an in-place update through the view must
# reach X; bounds past the ends, negative and beyond 64 bits follow Python's
# slicing, never wrap.
# expect: compiled batch_loss, batch_view
import numpy as np

from _probe import call, snapshot

X = np.arange(60.0).reshape(15, 4) * 0.25 - 3.0
W = np.linspace(-1.0, 1.0, 4)


def batch_loss(X, i, bs):
    xb = X[i * bs:(i + 1) * bs]
    return float((np.tanh(xb @ W) ** 2).mean()), xb.shape[0]


def batch_view(X, i, bs):
    xb = X[i * bs:(i + 1) * bs]
    return xb, xb * 2.0


def strided_batch(X, i):
    return X[i:i + 6:2] @ W


def scale_batch(X, i, bs, f):
    xb = X[i * bs:(i + 1) * bs]
    xb *= f
    return xb.sum()


def tail(X, i):
    return X[i:] + 1.0


for rnd in range(3):
    for i in range(5):
        call(f"loss{rnd}_{i}", batch_loss, X, i, 4)
        call(f"view{rnd}_{i}", batch_view, X, i, 4)
        call(f"strided{rnd}_{i}", strided_batch, X, i)
        call(f"tail{rnd}_{i}", tail, X, i + 9)
for i in (-3, -1, 7, 40, 2**40, -(2**40), 2**61, 2**62, 2**63 + 1):
    call(f"loss_edge{i}", batch_loss, X, i, 4)
    call(f"view_edge{i}", batch_view, X, i, 4)
for i in range(4):
    call(f"scale{i}", scale_batch, X, i, 4, 1.5)
snapshot("X", X)
