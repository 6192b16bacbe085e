# %% [markdown]
# # W3: MLP 784-256-256-10 with manual backprop
# Minibatches of 64 through two ReLU layers and a softmax, plain SGD; the same model is
# trained in float32 and in float64 (two timed cells).

# %% setup
import os
import sys

import numpy as np

QUICK = os.environ.get("SPECULA_BENCH_QUICK") == "1" or "--quick" in sys.argv[1:]

sizes = [784, 256, 256, 10]
batch_size = 64
batches = 5 if QUICK else 100
learning_rate = 0.05

rng = np.random.default_rng(0)
# MNIST-shaped synthetic data: labels come from a fixed random linear teacher.
X_all = rng.random((batches * batch_size, sizes[0]))
teacher = rng.standard_normal((sizes[0], sizes[-1]))
y_all = np.argmax((X_all - 0.5) @ teacher, axis=1)


def init_mlp(dtype):
    params = {}
    for k, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:]), start=1):
        params[f"W{k}"] = (rng.standard_normal((n_in, n_out)) * np.sqrt(2 / n_in)).astype(dtype)
        params[f"b{k}"] = np.zeros(n_out, dtype)
    return params


def mlp_loss(p, X, y):
    """Softmax cross-entropy of a 3-layer ReLU MLP and its gradients."""
    z1 = X @ p["W1"] + p["b1"]
    a1 = np.maximum(z1, 0)
    z2 = a1 @ p["W2"] + p["b2"]
    a2 = np.maximum(z2, 0)
    logits = a2 @ p["W3"] + p["b3"]
    logits -= logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    n = X.shape[0]
    loss = -np.log(probs[np.arange(n), y]).mean()

    d3 = probs
    d3[np.arange(n), y] -= 1
    d3 /= n
    grads = {"W3": a2.T @ d3, "b3": d3.sum(axis=0)}
    d2 = (d3 @ p["W3"].T) * (z2 > 0)
    grads.update(W2=a1.T @ d2, b2=d2.sum(axis=0))
    d1 = (d2 @ p["W2"].T) * (z1 > 0)
    grads.update(W1=X.T @ d1, b1=d1.sum(axis=0))
    return loss, grads


params32 = init_mlp(np.float32)
params64 = init_mlp(np.float64)
X32, X64 = X_all.astype(np.float32), X_all.astype(np.float64)

# %% check
# Central-difference gradient check in float64, a few entries of every parameter.
check_X, check_y = X64[:8], y_all[:8]
_, check_grads = mlp_loss(params64, check_X, check_y)
check_rng = np.random.default_rng(1)
mismatches = []
for name, param in params64.items():
    for _ in range(5):
        ri = tuple(int(check_rng.integers(s)) for s in param.shape)
        old = param[ri]
        param[ri] = old + 1e-6
        plus = mlp_loss(params64, check_X, check_y)[0]
        param[ri] = old - 1e-6
        minus = mlp_loss(params64, check_X, check_y)[0]
        param[ri] = old
        numeric = (plus - minus) / 2e-6
        if abs(check_grads[name][ri] - numeric) > 1e-7 + 1e-4 * abs(numeric):
            mismatches.append((name, ri, check_grads[name][ri], numeric))
assert not mismatches, f"gradient check failed: {mismatches}"
# The float32 model must stay float32 through a step (no silent promotion).
loss32, grads32 = mlp_loss(params32, X32[:batch_size], y_all[:batch_size])
assert all(g.dtype == np.float32 for g in grads32.values())

# %% timed f32
for k in range(batches):
    xb = X32[k * batch_size:(k + 1) * batch_size]
    yb = y_all[k * batch_size:(k + 1) * batch_size]
    loss32, grads = mlp_loss(params32, xb, yb)
    for name in params32:
        params32[name] -= learning_rate * grads[name]

# %% timed f64
for k in range(batches):
    xb = X64[k * batch_size:(k + 1) * batch_size]
    yb = y_all[k * batch_size:(k + 1) * batch_size]
    loss64, grads = mlp_loss(params64, xb, yb)
    for name in params64:
        params64[name] -= learning_rate * grads[name]
