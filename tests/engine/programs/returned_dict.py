# A softmax-regression loss that builds a dict of gradients and returns it (same
# key order, a real dict), with fancy indexing probs[np.arange(n), y] and the
# get-modify-set update d[np.arange(n), y] -= 1; float64 and float32.
# expect: compiled loss_and_grads
import numpy as np
from _probe import snapshot, call

rng = np.random.default_rng(5)


def loss_and_grads(p, X, y):
    z = X @ p["W"] + p["b"]
    a = np.maximum(z, 0)
    logits = a @ p["V"]
    logits -= logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    n = X.shape[0]
    loss = -np.log(probs[np.arange(n), y]).mean()
    d = probs
    d[np.arange(n), y] -= 1
    d /= n
    grads = {"V": a.T @ d}
    dz = (d @ p["V"].T) * (z > 0)
    grads.update(W=X.T @ dz, b=dz.sum(axis=0))
    grads["n"] = n
    extra = {}
    extra[0] = grads.get("missing", 1.5)
    return loss, grads, extra, len(grads)


for dtype in (np.float64, np.float32):
    p = {"W": rng.standard_normal((7, 5)).astype(dtype),
         "b": np.zeros(5, dtype),
         "V": rng.standard_normal((5, 3)).astype(dtype)}
    for i in range(25):
        X = rng.standard_normal((6, 7)).astype(dtype)
        y = rng.integers(0, 3, 6)
        loss, grads, extra, count = call(f"lg{dtype.__name__}{i}", loss_and_grads, p, X, y)
        snapshot(f"keys{dtype.__name__}{i}", list(grads))
        for k in ("W", "b", "V"):
            p[k] -= 0.1 * grads[k]
