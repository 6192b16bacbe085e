# An exception raised by NumPy itself (shape mismatch in `@`) inside a hot
# function, after an effect: the message, traceback and kept effect must match.
# expect: compiled project
import numpy as np
from _probe import snapshot, call

seen = []


def project(x, w):
    seen.append(x.shape)
    h = x @ w
    return h.sum(axis=1)


w = np.arange(12.0).reshape(4, 3)
for i in range(26):
    x = np.ones((2, 4 if i % 9 != 8 else 5))
    call(f"project{i}", project, x, w)
snapshot("seen", seen)
