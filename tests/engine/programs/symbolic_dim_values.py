# The size of a relaxed (symbolic) dim used as a value: `x.shape[0]`, `len(x)`,
# in arithmetic, in `range` (a loop over the rows, one IR LOOP) and in
# comparisons, while the batch size changes on every call: one specialisation
# serves every size. A reshape by a symbolic size still pins the dims (a static
# specialisation per size).
# expect: compiled batch_mean, row_scan, flatten_rows
import numpy as np
from _probe import snapshot, call


def batch_mean(x):
    n, d = x.shape
    total = x.sum(axis=0)
    return total / float(n), n * d, len(x) - 1, n > 4


def row_scan(x):
    acc = np.zeros(x.shape[1])
    for i in range(len(x)):
        acc = acc * 0.5 + x[i]
    return acc, x.shape[0] * 2


def flatten_rows(x):
    n = x.shape[0]
    return x.reshape(n * x.shape[1]) * 2.0


for i in range(30):
    b = 2 + (i * 5) % 7
    x = np.linspace(-1.0, 1.0, b * 3).reshape(b, 3) + i
    call(f"mean{i}", batch_mean, x)
    call(f"scan{i}", row_scan, x)
    call(f"flat{i}", flatten_rows, x)
