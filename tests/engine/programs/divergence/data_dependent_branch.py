# Footgun: control flow that depends on array data, flipping after compilation.
# expect: compiled clip_grad
import numpy as np
from _probe import call


def clip_grad(g, max_norm):
    norm = np.sqrt((g * g).sum())
    if norm > max_norm:
        g = g * (max_norm / norm)
    elif norm == 0:
        return g, "zero"
    return g, "clipped" if norm > max_norm else "kept"


for i in range(30):
    call(f"cg{i}", clip_grad, np.array([3.0, 4.0]) * (i - 22) / 4, 2.0)
