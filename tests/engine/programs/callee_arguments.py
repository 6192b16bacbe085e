# Argument binding of inlined callees: keywords in any order, defaults (positional
# and keyword-only), tuples returned and unpacked, nested calls as arguments.
# expect: compiled layer_pair
import numpy as np
from _probe import snapshot, call


def affine(x, w, b=0.0, *, scale=1.0):
    return (x @ w + b) * scale


def split(v, at=2):
    return v[:, :at], v[:, at:]


def norm_pair(a, b, eps=1e-6):
    return a / (np.abs(a).sum() + eps), b / (np.abs(b).sum() + eps)


def layer_pair(x, w):
    h = affine(x, w, scale=0.5)
    left, right = split(h)
    p, q = norm_pair(b=right, a=left)
    g = affine(w=w.T, x=affine(x, w, 1.0), b=-1.0)
    return p.sum() + q.sum(), g


x = np.linspace(-1, 1, 8).reshape(2, 4)
w = np.arange(16.0).reshape(4, 4) / 7
for i in range(25):
    call(f"layer_pair{i}", layer_pair, x * (1 + i / 10), w)
affine.__kwdefaults__ = {"scale": 3.0}
call("after_kwdefaults", layer_pair, x, w)
