# `if` on array data (NumPy bools and numbers) inside the hot function and inside
# an inlined helper: compiled as an IR conditional, so the branch flipping between
# calls changes nothing. elif chains, NaN's truth, Python floats merged.
# expect: compiled step, clipped_update
import numpy as np
from _probe import snapshot, call


def direction(g):
    if g.sum() > 0:
        d = -g
    elif g.sum() < 0:
        d = g * -0.5
    else:
        d = np.zeros_like(g)
    return d


def clipped_update(w, g, limit):
    norm = np.sqrt((g * g).sum())
    if norm > limit:
        scale = limit / norm
    else:
        scale = norm * 0.0 + 1.0
    return w + direction(g) * scale


def step(w, g):
    m = g.max()
    if m:                       # a NumPy float: true unless 0.0 (NaN is true)
        w2 = clipped_update(w, g, 1.0)
    else:
        w2 = w * 1.0
    return w2, float(m)


w = np.linspace(-1, 1, 4)
for i in range(32):
    sign = 1.0 if i % 3 else -1.0
    g = np.array([0.5, -0.25, 1.5, 0.1]) * sign * (i % 5)
    if i == 27:
        g = np.array([np.nan, 0.0, 1.0, 2.0])
    if i == 29:
        g = np.zeros(4)
    call(f"step{i}", step, w, g)
    call(f"clipped_update{i}", clipped_update, w, g, 0.5 + i / 20)
