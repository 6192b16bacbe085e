# reshape/transpose/.T/ravel return views or copies; returned arrays keep NumPy's
# strides, base and flags (recorded by the probe).
# expect: compiled shapes
import numpy as np
from _probe import snapshot, call


def shapes(x):
    a = x.reshape(3, -1)
    b = x.T
    c = x.transpose(1, 0).reshape(-1)       # copy: not contiguous
    d = x.ravel()
    e = b.reshape(2, 2, 3)
    f = np.reshape(x, (12, 1), order="F")
    a[0, 0] = -1.0                           # writes through to x
    return a, b, c, d, e, f, x


for i in range(25):
    x = np.arange(12.0).reshape(4, 3) + i
    r = call(f"shapes{i}", shapes, x)
    snapshot(f"after{i}", (x, r))
