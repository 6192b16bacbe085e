# A GRU cell unrolled over a sequence; the hidden state is returned and fed back.
# expect: compiled gru_step
import numpy as np
from _probe import snapshot, call

rng = np.random.RandomState(8)
H, D = 6, 3
Wz, Wr, Wh = (rng.randn(D + H, H) * 0.4 for _ in range(3))


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def gru_step(x, h):
    xh = np.concatenate([x, h], axis=1)
    z = sigmoid(xh @ Wz)
    r = sigmoid(xh @ Wr)
    hh = np.tanh(np.concatenate([x, r * h], axis=1) @ Wh)
    return (1 - z) * h + z * hh


h = np.zeros((2, H))
seq = rng.randn(30, 2, D)
for t in range(30):
    h = call(f"gru{t}", gru_step, seq[t], h)
snapshot("h", h)
