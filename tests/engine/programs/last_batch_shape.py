# Minibatch training where the last batch is smaller: (8,5) batches then (3,5).
# expect: compiled train_step
import numpy as np
from _probe import snapshot, call

rng = np.random.RandomState(3)
X = rng.standard_normal((83, 5))
y = (X @ np.array([1.0, -2.0, 0.5, 0.0, 3.0]) > 0).astype(np.float64)
w = np.zeros(5)
b = 0.0


def train_step(xb, yb, lr):
    global b
    z = xb @ w + b
    p = 1.0 / (1.0 + np.exp(-z))
    g = p - yb
    w[:] -= lr * (xb.T @ g) / xb.shape[0]
    b -= lr * g.mean()
    return -np.mean(yb * np.log(p + 1e-12) + (1 - yb) * np.log(1 - p + 1e-12))


for epoch in range(3):
    for start in range(0, len(X), 8):
        call(f"e{epoch}s{start}", train_step, X[start:start + 8], y[start:start + 8], 0.1)
snapshot("w", w)
snapshot("b", b)
