# min-char-rnn's loss: the log of one probability read from an array
# (np.log(p[k, 0]), a NumPy scalar), and exp/tanh/log1p of single elements, over
# values where NumPy's SIMD loops and the C library disagree in the last bit.
# expect: compiled nll, squash
import numpy as np
from _probe import snapshot, call


def nll(p, targets):
    loss = 0.0
    for t in range(40):
        loss -= np.log(p[targets[t], t])
    return loss


def squash(x):
    out = []
    for t in range(30):
        out.append(np.exp(x[t:t + 1]) + np.tanh(x[t, None]) + np.log1p(np.abs(x[t])))
    return out


rng = np.random.default_rng(7)
for i in range(25):
    p = rng.random((8, 40)) * 10.0 ** rng.integers(-4, 3)
    targets = [int(k) for k in rng.integers(0, 8, 40)]
    call(f"nll{i}", nll, p, targets)
    call(f"squash{i}", squash, rng.standard_normal(30) * 3.0)
