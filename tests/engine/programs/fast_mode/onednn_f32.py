# float32 code the CPU backend hands to oneDNN in the `fast` numerics mode
# (softmax, layer normalisation, row sums, a sqrt chain), sizes above the
# measured crossovers. test_onednn_fast.py runs it with the engine off, on in
# `exact` mode and on in `fast` mode; the results go to SPECULA_RESULTS (.npz).
import os

import numpy as np


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm(x, g, b):
    mu = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def rowsum(x):
    return x.sum(axis=1)


def sqrt_chain(x, y):
    return np.sqrt(x * y + 1.0)


rng = np.random.default_rng(7)
x = rng.standard_normal((64, 1000)).astype(np.float32)
y = rng.uniform(0.0, 2.0, (64, 1000)).astype(np.float32)
g = rng.uniform(0.5, 1.5, 1000).astype(np.float32)
b = rng.uniform(-1.0, 1.0, 1000).astype(np.float32)
xn = x.copy()
xn[5, 17] = np.nan  # a NaN row for the normalisation
out = {}
for i in range(25):
    out["softmax"] = softmax(x)
    out["layernorm"] = layernorm(xn, g, b)
    out["rowsum"] = rowsum(np.abs(x))
    out["sqrt_chain"] = sqrt_chain(np.abs(x), y)
np.savez(os.environ["SPECULA_RESULTS"], **out)
