# %% [markdown]
# # W7: a training-epoch cell, re-run
# The cell people re-run again and again: one epoch of a small two-layer network written
# inline, minibatch by minibatch. Nothing in it changes between runs but the weights.

# %% setup
import os
import sys

import numpy as np

QUICK = os.environ.get("SPECULA_BENCH_QUICK") == "1" or "--quick" in sys.argv[1:]

n_samples, n_features, n_hidden, n_classes = (400 if QUICK else 4000), 32, 64, 4
batch_size, learning_rate = 32, 0.1

rng = np.random.default_rng(0)
X = rng.standard_normal((n_samples, n_features))
labels = np.argmax(X @ rng.standard_normal((n_features, n_classes)), axis=1)
Y = np.eye(n_classes)[labels]
W1 = rng.standard_normal((n_features, n_hidden)) * 0.1
b1 = np.zeros(n_hidden)
W2 = rng.standard_normal((n_hidden, n_classes)) * 0.1
b2 = np.zeros(n_classes)
history = []


def full_loss(W1, b1, W2, b2):
    logits = np.tanh(X @ W1 + b1) @ W2 + b2
    logits -= logits.max(axis=1, keepdims=True)
    return float(-(logits - np.log(np.exp(logits).sum(axis=1, keepdims=True)))[Y > 0].mean())


initial_loss = full_loss(W1, b1, W2, b2)

# %% timed
epoch_loss = 0.0
for start in range(0, n_samples, batch_size):
    xb, yb = X[start:start + batch_size], Y[start:start + batch_size]
    h = np.tanh(xb @ W1 + b1)
    logits = h @ W2 + b2
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    epoch_loss += -np.log(p[yb > 0]).sum()
    dlogits = (p - yb) / len(xb)
    dh = (dlogits @ W2.T) * (1 - h * h)
    W2 -= learning_rate * h.T @ dlogits
    b2 -= learning_rate * dlogits.sum(axis=0)
    W1 -= learning_rate * xb.T @ dh
    b1 -= learning_rate * dh.sum(axis=0)
history.append(epoch_loss / n_samples)

# %% check
# Training must have made progress, and the gradient the cell uses must match a central
# difference of the loss along a random direction.
assert all(np.isfinite(history)) and full_loss(W1, b1, W2, b2) < initial_loss
check_rng = np.random.default_rng(1)
V1 = check_rng.standard_normal(W1.shape)
h = np.tanh(X @ W1 + b1)
logits = h @ W2 + b2
p = np.exp(logits - logits.max(axis=1, keepdims=True))
p /= p.sum(axis=1, keepdims=True)
dW1 = X.T @ (((p - Y) / n_samples) @ W2.T * (1 - h * h))
numeric = (full_loss(W1 + 1e-6 * V1, b1, W2, b2) - full_loss(W1 - 1e-6 * V1, b1, W2, b2)) / 2e-6
assert abs((dW1 * V1).sum() - numeric) < 1e-6 + 1e-5 * abs(numeric)
