# Fortran-ordered inputs: elementwise results keep NumPy's output layout ('K'
# order), and matmul on F-order operands.
# expect: compiled f_ops
import numpy as np
from _probe import call


def f_ops(a, b):
    c = a + b
    d = np.exp(a)
    e = a @ b.T
    f = a * 2
    g = np.empty_like(a)
    g[...] = a
    return c, d, e, f, g, c.flags.f_contiguous


for i in range(25):
    a = np.asfortranarray(np.arange(12.0).reshape(3, 4) / (i + 1))
    b = np.arange(12.0).reshape(3, 4) if i % 2 else np.asfortranarray(np.ones((3, 4)))
    call(f"f{i}", f_ops, a, b)
