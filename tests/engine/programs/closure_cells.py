# Closures: a hot function that is itself a closure reading captured values, and
# calling a helper made by a factory whose cell is rebound (nonlocal) between calls.
# Cells are re-read at every call.
# expect: compiled loss
import numpy as np
from _probe import snapshot, call


def make_scaler(factor):
    def scale(v):
        return v * factor

    def set_factor(value):
        nonlocal factor
        factor = value

    return scale, set_factor


def make_loss(weights):
    offset = np.array([0.5, -0.5, 0.25])

    def loss(x):
        d = scale(x) - offset
        return float((d * d) @ weights)

    def shift(value):
        nonlocal offset
        offset = offset + value

    return loss, shift


scale, set_factor = make_scaler(2.0)
loss, shift = make_loss(np.array([1.0, 2.0, 3.0]))
x = np.array([0.1, 0.2, 0.3])
for i in range(30):
    if i == 21:
        set_factor(3.5)
    if i == 24:
        shift(1.0)
    if i == 27:
        set_factor(np.float64(1.5))
    call(f"loss{i}", loss, x + i / 100)
