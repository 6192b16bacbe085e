# An assert statement in the hot function that fails only on the last calls.
# expect: compiled checked_norm
import numpy as np
from _probe import snapshot, call

normed = []


def checked_norm(v):
    n = np.sqrt((v * v).sum())
    normed.append(n)
    assert n > 1e-12, f"zero vector of shape {v.shape}"
    return v / n


for i in range(26):
    call(f"cn{i}", checked_norm, np.arange(3.0) * (1 if i < 24 else 0))
snapshot("normed", normed)
