# A helper the hot function calls is rebound after compilation (and back).
# expect: compiled forward
import numpy as np
from _probe import snapshot, call


def act(x):
    return np.maximum(x, 0.0)


def leaky(x):
    return np.where(x > 0, x, 0.01 * x)


def forward(x, w):
    return act(x @ w).sum(axis=0)


x = np.linspace(-1, 1, 12).reshape(4, 3)
w = np.arange(6.0).reshape(3, 2) - 2.5
original = act
for i in range(30):
    if i == 20:
        act = leaky
    if i == 25:
        act = original
    if i == 27:
        act = lambda v: v * 2.0   # noqa: E731  (a lambda now)
    call(f"forward{i}", forward, x, w)
