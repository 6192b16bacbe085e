# Karpathy's min-char-rnn loss function: dicts keyed by time step and
# np.clip(..., out=...) on the gradients.
# expect: compiled lossFun
import numpy as np
from _probe import snapshot, call

data = "hello specula, hello numpy. " * 4
chars = sorted(set(data))
vocab_size, hidden_size, seq_length = len(chars), 12, 8
char_to_ix = {ch: i for i, ch in enumerate(chars)}
rng = np.random.RandomState(4)
Wxh = rng.randn(hidden_size, vocab_size) * 0.01
Whh = rng.randn(hidden_size, hidden_size) * 0.01
Why = rng.randn(vocab_size, hidden_size) * 0.01
bh = np.zeros((hidden_size, 1))
by = np.zeros((vocab_size, 1))


def lossFun(inputs, targets, hprev):
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
hprev = np.zeros((hidden_size, 1))
p = 0
for n in range(24):
    if p + seq_length + 1 >= len(data):
        p, hprev = 0, np.zeros((hidden_size, 1))
    inputs = [char_to_ix[ch] for ch in data[p:p + seq_length]]
    targets = [char_to_ix[ch] for ch in data[p + 1:p + seq_length + 1]]
    out = call(f"loss{n}", lossFun, inputs, targets, hprev)
    loss, dWxh, dWhh, dWhy, dbh, dby, hprev = out
    for param, dparam, mem in zip([Wxh, Whh, Why, bh, by], [dWxh, dWhh, dWhy, dbh, dby],
                                  [mWxh, mWhh, mWhy, mbh, mby]):
        mem += dparam * dparam
        param += -0.1 * dparam / np.sqrt(mem + 1e-8)
    p += seq_length
snapshot("params", [Wxh, Whh, Why, bh, by])
