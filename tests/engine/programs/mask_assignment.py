# Boolean-mask assignment as in a ReLU backward pass (dh[h <= 0] = 0), written to a
# computed array and to an argument array.
# expect: compiled relu_backward, clamp_negative
import numpy as np
from _probe import snapshot, call


def relu_backward(h, dout, W):
    dh = dout @ W.T
    dh[h <= 0] = 0
    return dh, dh.sum()


def clamp_negative(x, floor):
    x[x < floor] = floor
    x[x > 100.0] = 100.0


rng = np.random.default_rng(2)
W = rng.standard_normal((6, 4))
x = rng.standard_normal(10) * 60
for i in range(25):
    h = rng.standard_normal((3, 6))
    dout = rng.standard_normal((3, 4))
    call(f"rb{i}", relu_backward, h, dout, W)
    call(f"cn{i}", clamp_negative, x, -1.0 - i)
    x *= 1.5
snapshot("x", x)
