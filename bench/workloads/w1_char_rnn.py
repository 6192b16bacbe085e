# %% [markdown]
# # W1: character-level vanilla RNN (min-char-rnn)
# Hidden 100, vocabulary ~65 characters, sequences of 25, the forward and backward
# passes kept in dicts keyed by time step, gradients clipped in place, Adagrad, float64.

# %% setup
import os
import string
import sys

import numpy as np

QUICK = os.environ.get("SPECULA_BENCH_QUICK") == "1" or "--quick" in sys.argv[1:]

# The corpus: a short text repeated, plus every letter and digit so the vocabulary is ~65.
text = (
    "A recurrent network reads one character at a time, keeps a hidden state, and\n"
    "learns to predict the next character. Simple models, trained long enough, write\n"
    "surprisingly plausible text; this one only needs to be fast, not eloquent!\n"
)
data = text * 60 + string.ascii_letters + string.digits
chars = sorted(set(data))
data_size, vocab_size = len(data), len(chars)
char_to_ix = {ch: i for i, ch in enumerate(chars)}
ix_to_char = {i: ch for i, ch in enumerate(chars)}

hidden_size = 100
seq_length = 25
learning_rate = 1e-1
iterations = 10 if QUICK else 200

rng = np.random.default_rng(0)
Wxh = rng.standard_normal((hidden_size, vocab_size)) * 0.01
Whh = rng.standard_normal((hidden_size, hidden_size)) * 0.01
Why = rng.standard_normal((vocab_size, hidden_size)) * 0.01
bh = np.zeros((hidden_size, 1))
by = np.zeros((vocab_size, 1))


def lossFun(inputs, targets, hprev):
    """Forward and backward over one sequence; returns loss, gradients, last state."""
    xs, hs, ys, ps = {}, {}, {}, {}
    hs[-1] = np.copy(hprev)
    loss = 0
    for t in range(len(inputs)):
        xs[t] = np.zeros((vocab_size, 1))
        xs[t][inputs[t]] = 1
        hs[t] = np.tanh(np.dot(Wxh, xs[t]) + np.dot(Whh, hs[t - 1]) + bh)
        ys[t] = np.dot(Why, hs[t]) + by
        ps[t] = np.exp(ys[t]) / np.sum(np.exp(ys[t]))
        loss += -np.log(ps[t][targets[t], 0])
    dWxh, dWhh, dWhy = np.zeros_like(Wxh), np.zeros_like(Whh), np.zeros_like(Why)
    dbh, dby = np.zeros_like(bh), np.zeros_like(by)
    dhnext = np.zeros_like(hs[0])
    for t in reversed(range(len(inputs))):
        dy = np.copy(ps[t])
        dy[targets[t]] -= 1
        dWhy += np.dot(dy, hs[t].T)
        dby += dy
        dh = np.dot(Why.T, dy) + dhnext
        dhraw = (1 - hs[t] * hs[t]) * dh
        dbh += dhraw
        dWxh += np.dot(dhraw, xs[t].T)
        dWhh += np.dot(dhraw, hs[t - 1].T)
        dhnext = np.dot(Whh.T, dhraw)
    for dparam in [dWxh, dWhh, dWhy, dbh, dby]:
        np.clip(dparam, -5, 5, out=dparam)
    return loss, dWxh, dWhh, dWhy, dbh, dby, hs[len(inputs) - 1]


mWxh, mWhh, mWhy = np.zeros_like(Wxh), np.zeros_like(Whh), np.zeros_like(Why)
mbh, mby = np.zeros_like(bh), np.zeros_like(by)
smooth_loss = -np.log(1.0 / vocab_size) * seq_length
n, p = 0, 0
hprev = np.zeros((hidden_size, 1))

# %% check
# Gradient check by central differences, in the min-char-rnn way: a few random entries
# of every parameter. Entries at the clipping limit (possible once trained) are skipped:
# the finite difference sees the unclipped gradient.
check_inputs = [char_to_ix[ch] for ch in data[:seq_length]]
check_targets = [char_to_ix[ch] for ch in data[1:seq_length + 1]]
h0 = np.zeros((hidden_size, 1))
_, dWxh, dWhh, dWhy, dbh, dby, _ = lossFun(check_inputs, check_targets, h0)
check_rng = np.random.default_rng(1)
mismatches = []
for param, dparam in zip([Wxh, Whh, Why, bh, by], [dWxh, dWhh, dWhy, dbh, dby]):
    for _ in range(5):
        ri = tuple(int(check_rng.integers(s)) for s in param.shape)
        old = param[ri]
        param[ri] = old + 1e-5
        loss_plus = lossFun(check_inputs, check_targets, h0)[0]
        param[ri] = old - 1e-5
        loss_minus = lossFun(check_inputs, check_targets, h0)[0]
        param[ri] = old
        numeric = (loss_plus - loss_minus) / 2e-5
        analytic = dparam[ri]
        if abs(analytic) < 5 and abs(analytic - numeric) > 1e-8 + 1e-5 * abs(numeric):
            mismatches.append((ri, analytic, numeric))
assert not mismatches, f"gradient check failed: {mismatches}"

# %% timed
# One training epoch: `iterations` sequences of 25 characters with Adagrad.
for _ in range(iterations):
    if p + seq_length + 1 >= len(data) or n == 0:
        hprev = np.zeros((hidden_size, 1))
        p = 0
    inputs = [char_to_ix[ch] for ch in data[p:p + seq_length]]
    targets = [char_to_ix[ch] for ch in data[p + 1:p + seq_length + 1]]
    loss, dWxh, dWhh, dWhy, dbh, dby, hprev = lossFun(inputs, targets, hprev)
    smooth_loss = smooth_loss * 0.999 + loss * 0.001
    for param, dparam, mem in zip([Wxh, Whh, Why, bh, by],
                                  [dWxh, dWhh, dWhy, dbh, dby],
                                  [mWxh, mWhh, mWhy, mbh, mby]):
        mem += dparam * dparam
        param += -learning_rate * dparam / np.sqrt(mem + 1e-8)
    p += seq_length
    n += 1
