# A two-layer MLP training step with in-place SGD updates on a params dict.
# expect: compiled train_step
import numpy as np
from _probe import snapshot, call

rng = np.random.RandomState(5)
params = {"W1": rng.randn(4, 8) * 0.3, "b1": np.zeros(8), "W2": rng.randn(8, 3) * 0.3,
          "b2": np.zeros(3)}
X = rng.randn(16, 4)
Y = np.eye(3)[rng.randint(0, 3, 16)]


def train_step(p, x, y, lr):
    h = np.maximum(x @ p["W1"] + p["b1"], 0)
    logits = h @ p["W2"] + p["b2"]
    logits -= logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    prob = e / e.sum(axis=1, keepdims=True)
    loss = -np.sum(y * np.log(prob)) / x.shape[0]
    d = (prob - y) / x.shape[0]
    dW2 = h.T @ d
    dh = d @ p["W2"].T
    dh[h <= 0] = 0
    dW1 = x.T @ dh
    p["W2"] -= lr * dW2
    p["b2"] -= lr * d.sum(axis=0)
    p["W1"] -= lr * dW1
    p["b1"] -= lr * dh.sum(axis=0)
    return loss


for i in range(30):
    call(f"step{i}", train_step, params, X, Y, 0.5)
snapshot("params", params)
