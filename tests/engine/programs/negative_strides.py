# Negative-stride and non-contiguous views as inputs, as out= targets and as
# in-place destinations.
# expect: compiled reverse_ops
import numpy as np
from _probe import snapshot, call


def reverse_ops(a, m):
    r = a[::-1]
    s = a[::2] * 2
    np.add(r, 1.0, out=r)          # in place through a reversed view
    m[:, ::-2] *= -1
    col = m[::-1, 1]
    return r, s, col, m.T[::-1]


for i in range(25):
    a = np.arange(9.0) + i
    m = np.arange(20.0).reshape(4, 5)
    res = call(f"rev{i}", reverse_ops, a, m)
    snapshot(f"state{i}", (a, m, res))
