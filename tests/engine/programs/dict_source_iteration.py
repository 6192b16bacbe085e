# Iterating dicts the function is given (arguments, globals): `for k, p in
# params.items()`, `for k in grads`, `.values()`, unrolled over the keys under a
# guard on the key tuple. Updates of the values in place (p -= lr * g) are
# effects on the arrays, not on the dict. A key added late, and keys in another
# order, miss the guard: CPython runs that call and the region recompiles for
# the new keys.
# expect: compiled sgd_step, total_norm, blend, weighted
import numpy as np
from _probe import snapshot, call

rng = np.random.default_rng(3)
params = {"W": rng.standard_normal((3, 4)), "b": np.zeros(4)}
grads = {"W": rng.standard_normal((3, 4)), "b": rng.standard_normal(4)}
WEIGHTS = {"x": 0.5, "y": 2.0}


def sgd_step(params, grads, lr):
    for k, p in params.items():
        p -= lr * grads[k]
    return params["W"].sum()


def total_norm(grads):
    s = 0.0
    for k in grads:
        s += float((grads[k] ** 2).sum())
    return s


def blend(parts, f):
    total = np.zeros(3)
    for v in parts.values():
        total = total + v * f
    return total


def weighted(xs):
    out = np.zeros(2)
    for name, w in WEIGHTS.items():
        out = out + xs[name] * w
    return out


for i in range(30):
    call(f"sgd{i}", sgd_step, params, grads, 0.01 * (1 + i % 3))
    call(f"norm{i}", total_norm, grads)
    parts = {"a": np.arange(3.0), "b": np.ones(3) * i}
    if i >= 24:
        parts["c"] = np.full(3, 0.25)  # a new key: guard miss, recompiled
    if i >= 27:
        parts = {"b": parts["b"], "a": parts["a"]}  # another order
    call(f"blend{i}", blend, parts, 0.5 + i)
    if i == 26:
        WEIGHTS["z"] = 1.0
    call(f"weighted{i}", weighted, {"x": np.ones(2) * i, "y": np.arange(2.0), "z": np.full(2, 3.0)})
snapshot("params", params)
