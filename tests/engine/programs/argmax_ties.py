# argmax/argmin with ties (first index wins), NaN (first NaN wins), along axes.
# expect: compiled pick
import numpy as np
from _probe import call


def pick(x):
    return np.argmax(x), np.argmin(x), x.argmax(axis=0), x.argmin(axis=-1), \
        np.argmax(x, axis=1, keepdims=True)


for i in range(25):
    x = np.array([[1.0, 3.0, 3.0], [3.0, np.nan if i % 3 == 0 else 1.0, 3.0]]) * (i % 4 - 1)
    call(f"pick{i}", pick, x)
    call(f"picki{i}", pick, (np.arange(6) % 2).reshape(2, 3))
