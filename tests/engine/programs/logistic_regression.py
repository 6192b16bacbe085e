# Full-batch logistic regression, with the weights returned as new arrays each step.
# expect: compiled gd_step
import numpy as np
from _probe import snapshot, call

rng = np.random.RandomState(6)
X = rng.randn(50, 3)
y = (X[:, 0] - X[:, 2] > 0).astype(float)


def gd_step(w, b, lr=0.3):
    p = 1 / (1 + np.exp(-(X @ w + b)))
    return w - lr * X.T @ (p - y) / len(y), b - lr * np.mean(p - y)


w, b = np.zeros(3), 0.0
for i in range(30):
    w, b = call(f"gd{i}", gd_step, w, b)
snapshot("wb", (w, b))
