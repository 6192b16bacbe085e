# Integer indices mixed with full slices, the index an int that changes on every
# call (a relaxed graph input): x[:, j] and x[:, :, j] (a take along that axis, a
# view in NumPy), x[j, :] (the same as x[j]), negative indices, writes x[:, j] = v
# and x[:, j] += v on a copy and on an argument (in place), and integer arrays
# after a full slice, x[:, cols] (NumPy lays that result out in another order).
# An index out of range on a late call: CPython raises the IndexError.
# expect: compiled column_stats, set_column, bump_column
import numpy as np
from _probe import snapshot, call

X = np.arange(60.0).reshape(5, 12) * 0.37 - 4.0
T = np.arange(2 * 3 * 4.0).reshape(2, 3, 4)


def column_stats(x, j):
    col = x[:, j]
    row = x[j, :]
    back = x[:, -1 - j]
    depth = T[:, :, j % 4]
    return col * 2.0 + back, float(row.max()), col.sum(), depth + 1.0


def set_column(x, j, v):
    y = x.copy()
    y[:, j] = v
    y[:, j + 1] += 0.5
    return y


def bump_column(x, j):
    x[:, j] += 1.0
    return x[:, j].max()


def pick(x, cols):
    return x[:, cols] * 1.0


arg = np.zeros((4, 6))
for i in range(30):
    j = (i * 5) % 5
    try:
        call(f"stats{i}", column_stats, X, j if i != 27 else 40)
    except IndexError as e:
        snapshot(f"stats_error{i}", str(e))
    call(f"set{i}", set_column, X, i % 10, np.linspace(0.0, 1.0, 5))
    call(f"bump{i}", bump_column, arg, i % 6)
    call(f"pick{i}", pick, X, np.array([i % 12, (3 * i) % 12, 0]))
snapshot("arg", arg)
