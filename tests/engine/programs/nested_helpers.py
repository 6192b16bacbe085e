# A chain of Python helpers called from the hot function (to be inlined), one of
# which mutates a global counter.
# expect: compiled model
import numpy as np
from _probe import snapshot, call

n_calls = 0


def relu(v):
    return np.maximum(v, 0)


def linear(v, w):
    global n_calls
    n_calls += 1
    return v @ w


def block(v, w):
    return relu(linear(v, w)) + v


def model(v, w):
    return block(block(v, w), w).sum()


w = np.eye(3) * 0.5 - 0.1
for i in range(25):
    call(f"model{i}", model, np.arange(6.0).reshape(2, 3) - i, w)
snapshot("n_calls", n_calls)
