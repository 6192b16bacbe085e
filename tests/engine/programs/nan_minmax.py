# NaN and inf propagation in max/min/argmax/maximum/fmax, with -0.0 against 0.0.
# expect: compiled stats
import numpy as np
from _probe import call


def stats(x):
    return (x.max(), x.min(), np.argmax(x), np.argmin(x), np.maximum(x, 0.0),
            np.minimum(x, -0.0), np.fmax(x, 1.0), x.max(axis=0), x.argmax(axis=1),
            np.max(x, axis=1, keepdims=True))


cases = [np.array([[1.0, np.nan, 3.0], [np.inf, -np.inf, 0.0]]),
         np.array([[-0.0, 0.0, -0.0], [0.0, -0.0, 0.0]]),
         np.array([[np.nan, np.nan, 1.0], [2.0, 2.0, 2.0]]),
         np.array([[np.inf, np.inf, 5.0], [-np.inf, np.nan, -np.inf]]),
         np.array([[3.0, 1.0, 3.0], [1.0, 3.0, 1.0]])]
with np.errstate(invalid="ignore"):
    for i in range(25):
        call(f"stats{i}", stats, cases[i % 5] * (1 + i % 2))
