# Integer-array indexing read and written: duplicate indices in a get-modify-set
# (a[idx] += 1 applies once per distinct index), last write wins on plain
# assignment, pairs of index arrays, negative indices, and an index out of range
# after compilation (IndexError from CPython, nothing committed).
# expect: compiled bump, pick, scatter_rows
import numpy as np
from _probe import snapshot, call


def bump(a, idx):
    a[idx] += 1
    a[idx[:2]] -= 0.5
    return a.sum()


def pick(m, rows, cols):
    g = m[rows, cols]
    m[rows, cols] = g * 2.0
    return g, m[rows]


def scatter_rows(m, idx, v):
    out = np.zeros_like(m)
    out[idx] = v
    return out


rng = np.random.default_rng(9)
a = np.zeros(8)
m = rng.standard_normal((5, 4))
for i in range(25):
    idx = np.array([1, 3, 3, -1, 1, i % 8])
    call(f"bump{i}", bump, a, idx)
    rows = np.array([0, 4, 4, -5, 2])
    cols = np.array([[1], [3]])
    call(f"pick{i}", pick, m, rows, cols)
    call(f"scatter{i}", scatter_rows, m, np.array([2, 0, 2]),
         np.arange(12.0).reshape(3, 4) + i)
snapshot("a", a)
snapshot("m", m)
try:
    bump(a, np.array([0, 8]))
except IndexError as e:
    print("IndexError:", e)
snapshot("a_after", a)
