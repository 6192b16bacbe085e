# Iterating dicts the code builds: `for k, v in d.items()`, `for k in d`,
# `.keys()`, `.values()`, a comprehension over `.values()`, min-char-rnn style
# dicts keyed by time steps; a loop whose body writes the dict it iterates
# stays in CPython (Python reads values as it goes).
# expect: compiled grad_norms, unroll_states
import numpy as np
from _probe import snapshot, call


def grad_norms(W, b, scale):
    grads = {"W": W * scale, "b": b - 1.0}
    total = 0.0
    norms = {}
    for name, g in grads.items():
        norms[name] = float(np.sqrt((g * g).sum()))
        total = total + norms[name]
    count = 0
    for name in grads:
        count += len(name)
    biggest = np.stack([v.sum() for v in grads.values()]).max()
    keys = 0
    for k in grads.keys():
        keys += 1
    return total, norms, count, biggest, keys


def unroll_states(x, h):
    hs = {-1: h}
    for t in range(3):
        hs[t] = np.tanh(x[t] + hs[t - 1])
    out = h * 0.0
    for t, ht in hs.items():
        out = out + ht * (t + 2)
    return out


def rewrite(W):
    d = {"a": W, "b": W * 2.0}
    for k, v in d.items():
        d[k] = v + 1.0
    return d["a"] + d["b"]


W = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
for i in range(24):
    call(f"norms{i}", grad_norms, W * (1 + i % 3), np.arange(3.0), 0.5)
    call(f"states{i}", unroll_states, np.linspace(0, 1, 12).reshape(3, 4) * i, np.ones(4))
    call(f"rewrite{i}", rewrite, W)
