# %% [markdown]
# # W2: LSTM language model with manual backprop
# Batch 20, hidden 200, unrolled 35 steps, vocabulary 1000, one LSTM layer between an
# embedding and a softmax, truncated BPTT with SGD and gradient-norm clipping, float32.

# %% setup
import os
import sys

import numpy as np

QUICK = os.environ.get("SPECULA_BENCH_QUICK") == "1" or "--quick" in sys.argv[1:]

batch_size, hidden_size, num_steps, vocab_size = 20, 200, 35, 1000
learning_rate, max_grad_norm = 0.5, 5.0
iterations = 1 if QUICK else 4
dtype = np.float32

rng = np.random.default_rng(0)
# A Zipf-distributed token stream stands in for a corpus, split into batch_size streams.
zipf = 1.0 / np.arange(1, vocab_size + 1)
stream = rng.choice(vocab_size, size=batch_size * (num_steps * 50 + 1), p=zipf / zipf.sum())
streams = stream.reshape(batch_size, -1)


def init_params(scale=0.1):
    H, V = hidden_size, vocab_size
    return {
        "E": rng.uniform(-scale, scale, (V, H)).astype(dtype),
        "Wx": rng.uniform(-scale, scale, (H, 4 * H)).astype(dtype),
        "Wh": rng.uniform(-scale, scale, (H, 4 * H)).astype(dtype),
        "b": np.zeros(4 * H, dtype),
        "Wy": rng.uniform(-scale, scale, (H, V)).astype(dtype),
        "by": np.zeros(V, dtype),
    }


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def lstm_loss(params, inputs, targets, h, c):
    """inputs, targets: (T, B) token ids. Returns loss, gradients, final (h, c)."""
    E, Wx, Wh, b, Wy, by = (params[k] for k in ("E", "Wx", "Wh", "b", "Wy", "by"))
    T, B = inputs.shape
    H = Wh.shape[0]
    x = E[inputs]
    hs, cs, gates = {-1: h}, {-1: c}, {}
    for t in range(T):
        a = x[t] @ Wx + hs[t - 1] @ Wh + b
        i = sigmoid(a[:, :H])
        f = sigmoid(a[:, H:2 * H])
        o = sigmoid(a[:, 2 * H:3 * H])
        g = np.tanh(a[:, 3 * H:])
        cs[t] = f * cs[t - 1] + i * g
        hs[t] = o * np.tanh(cs[t])
        gates[t] = (i, f, o, g)
    h_all = np.stack([hs[t] for t in range(T)]).reshape(T * B, H)
    logits = h_all @ Wy + by
    logits -= logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    rows = np.arange(T * B)
    flat_targets = targets.reshape(-1)
    loss = -np.log(probs[rows, flat_targets]).mean()

    dlogits = probs
    dlogits[rows, flat_targets] -= 1
    dlogits /= T * B
    grads = {"Wy": h_all.T @ dlogits, "by": dlogits.sum(axis=0)}
    dh_all = (dlogits @ Wy.T).reshape(T, B, H)
    dWx, dWh, db = np.zeros_like(Wx), np.zeros_like(Wh), np.zeros_like(b)
    dx = np.empty_like(x)
    dh_next, dc_next = np.zeros_like(h), np.zeros_like(c)
    for t in reversed(range(T)):
        i, f, o, g = gates[t]
        dh = dh_all[t] + dh_next
        tc = np.tanh(cs[t])
        dc = dh * o * (1 - tc * tc) + dc_next
        da = np.concatenate([dc * g * i * (1 - i), dc * cs[t - 1] * f * (1 - f),
                             dh * tc * o * (1 - o), dc * i * (1 - g * g)], axis=1)
        dWx += x[t].T @ da
        dWh += hs[t - 1].T @ da
        db += da.sum(axis=0)
        dx[t] = da @ Wx.T
        dh_next = da @ Wh.T
        dc_next = dc * f
    dE = np.zeros_like(E)
    np.add.at(dE, inputs, dx)
    grads.update(E=dE, Wx=dWx, Wh=dWh, b=db)
    return loss, grads, hs[T - 1], cs[T - 1]


params = init_params()
h = np.zeros((batch_size, hidden_size), dtype)
c = np.zeros((batch_size, hidden_size), dtype)
position = 0

# %% check
# Central-difference gradient check in float64 on a small batch: every parameter, a few
# entries each.
check_params = {k: v.astype(np.float64) for k, v in params.items()}
check_rng = np.random.default_rng(1)
check_in = check_rng.integers(vocab_size, size=(4, 3))
check_tg = check_rng.integers(vocab_size, size=(4, 3))
h0 = check_rng.standard_normal((3, hidden_size)) * 0.1
c0 = check_rng.standard_normal((3, hidden_size)) * 0.1
_, check_grads, _, _ = lstm_loss(check_params, check_in, check_tg, h0, c0)
mismatches = []
for name, param in check_params.items():
    for _ in range(4):
        # Embedding rows that the batch never reads have zero gradient: test rows it uses.
        if name == "E":
            ri = (int(check_rng.choice(check_in.ravel())), int(check_rng.integers(hidden_size)))
        else:
            ri = tuple(int(check_rng.integers(s)) for s in param.shape)
        old = param[ri]
        param[ri] = old + 1e-6
        plus = lstm_loss(check_params, check_in, check_tg, h0, c0)[0]
        param[ri] = old - 1e-6
        minus = lstm_loss(check_params, check_in, check_tg, h0, c0)[0]
        param[ri] = old
        numeric = (plus - minus) / 2e-6
        if abs(check_grads[name][ri] - numeric) > 1e-7 + 1e-4 * abs(numeric):
            mismatches.append((name, ri, check_grads[name][ri], numeric))
assert not mismatches, f"gradient check failed: {mismatches}"
assert all(v.dtype == np.float32 for v in params.values())

# %% timed
# A few steps of truncated BPTT, carrying the LSTM state between them.
for _ in range(iterations):
    if position + num_steps + 1 > streams.shape[1]:
        position = 0
    inputs = streams[:, position:position + num_steps].T
    targets = streams[:, position + 1:position + num_steps + 1].T
    loss, grads, h, c = lstm_loss(params, inputs, targets, h, c)
    norm = np.sqrt(sum(float((g * g).sum()) for g in grads.values()))
    scale = learning_rate * min(1.0, max_grad_norm / (norm + 1e-6))
    for name, g in grads.items():
        params[name] -= dtype(scale) * g
    position += num_steps
