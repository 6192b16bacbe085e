# a*b + c and a*b - c*d on values where a fused multiply-add gives a different
# result than NumPy's separate multiply and add (no contraction allowed).
# expect: compiled axpy
import numpy as np
from _probe import call


def axpy(a, b, c, d):
    return a * b + c, a * b - c * d, (a * a - b * b), np.dot(a, b) + c[0]


a = np.array([1.0 + 2.0 ** -30, 0.1, 1e8 + 1, 3.0000000000000004])
b = np.array([1.0 - 2.0 ** -30, 0.3, 1e8 - 1, 3.0000000000000004])
c = np.array([-1.0, -0.03, -1e16, -9.0])
for i in range(25):
    call(f"axpy{i}", axpy, a, b, c, b * (i + 1))
    call(f"axpy32_{i}", axpy, a.astype(np.float32), b.astype(np.float32),
         c.astype(np.float32), a.astype(np.float32))
