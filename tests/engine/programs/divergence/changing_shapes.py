# Footgun: changing shapes — batch size relaxed to a symbolic dim, then a change in
# rank, a zero-size batch and a shape changed in place (`a.shape = ...`).
# expect: compiled norm_rows
import numpy as np
from _probe import call


def norm_rows(x):
    n = np.sqrt((x * x).sum(axis=-1, keepdims=True))
    return x / np.maximum(n, 1e-12), x.shape[0]


for i in range(32):
    if i < 20:
        x = np.arange(8.0).reshape(4, 2) + i
    elif i < 24:
        x = np.arange(2.0 * (i - 17)).reshape(-1, 2)
    elif i < 26:
        x = np.arange(8.0).reshape(2, 2, 2)
    elif i < 28:
        x = np.zeros((0, 2))
    else:
        x = np.arange(8.0)
        x.shape = (2, 4)
    call(f"nr{i}", norm_rows, x)
