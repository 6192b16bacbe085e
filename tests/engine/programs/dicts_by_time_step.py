# min-char-rnn style: the forward and backward passes kept in local dicts keyed by
# unrolled time steps, token ids from lists of Python ints that differ on every
# call (int64 graph inputs used as dynamic indices), gradients clipped in place.
# (The log is taken of the whole column; one_element_transcendentals.py takes it
# of single elements.)
# expect: compiled step
import numpy as np
from _probe import snapshot, call

rng = np.random.default_rng(3)
vocab, hidden, T = 11, 6, 5
Wxh = rng.standard_normal((hidden, vocab)) * 0.3
Whh = rng.standard_normal((hidden, hidden)) * 0.3
Why = rng.standard_normal((vocab, hidden)) * 0.3
bh = np.zeros((hidden, 1))
by = np.zeros((vocab, 1))


def step(inputs, targets, hprev):
    xs, hs, ys, ps = {}, {}, {}, {}
    hs[-1] = np.copy(hprev)
    loss = 0
    for t in range(len(inputs)):
        xs[t] = np.zeros((vocab, 1))
        xs[t][inputs[t]] = 1
        hs[t] = np.tanh(np.dot(Wxh, xs[t]) + np.dot(Whh, hs[t - 1]) + bh)
        ys[t] = np.dot(Why, hs[t]) + by
        ps[t] = np.exp(ys[t]) / np.sum(np.exp(ys[t]))
        loss += -np.log(ps[t])[targets[t], 0]
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
        np.clip(dparam, -0.5, 0.5, out=dparam)
    return loss, dWxh, dWhh, dWhy, dbh, dby, hs[len(inputs) - 1]


h = np.zeros((hidden, 1))
for i in range(30):
    ids = [int(v) for v in rng.integers(0, vocab, T + 1)]
    if i == 24:
        ids[2] = -3  # a negative token id: NumPy wraps it
    out = call(f"step{i}", step, ids[:T], ids[1:], h)
    h = out[-1]
snapshot("h", h)
# A token id out of range after compilation: NumPy's IndexError, from CPython.
try:
    step([0, 1, vocab + 4, 2, 3], [1, 2, 3, 4, 5], h)
except IndexError as e:
    print("IndexError:", e)
