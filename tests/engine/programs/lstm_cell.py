# An LSTM cell whose gates are slices of one matmul, with hstack/vstack use.
# expect: compiled lstm_step
import numpy as np
from _probe import snapshot, call

rng = np.random.RandomState(9)
H, D = 5, 4
W = rng.randn(D + H, 4 * H) * 0.3
b = np.zeros(4 * H)


def lstm_step(x, h, c):
    g = np.hstack([x, h]) @ W + b
    i, f, o = (1 / (1 + np.exp(-g[:, k * H:(k + 1) * H])) for k in range(3))
    u = np.tanh(g[:, 3 * H:])
    c = f * c + i * u
    h = o * np.tanh(c)
    return h, c, np.vstack([h, c]).shape


h, c = np.zeros((3, H)), np.zeros((3, H))
for t in range(28):
    h, c, _ = call(f"lstm{t}", lstm_step, np.full((3, D), np.sin(t)), h, c)
snapshot("hc", (h, c))
