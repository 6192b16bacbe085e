# 0-d arrays versus NumPy scalars: what comes back is part of the result
# (a 0-d ndarray after np.add(..., out=), a np.float64 after arithmetic).
# expect: compiled zero_d
import numpy as np
from _probe import snapshot, call

acc = np.array(0.0)


def zero_d(x, s):
    y = x * 2            # 0-d * scalar -> np.float64
    z = x + x            # still a scalar
    np.add(acc, s, out=acc)   # stays 0-d, in place
    t = np.tanh(x)
    u = x[()]            # scalar
    v = x[...]           # 0-d view
    return y, z, t, u, v, x.shape, x.ndim, float(x), acc.item()


for i in range(25):
    x = np.array(i / 7.0)
    call(f"z{i}", zero_d, x, i)
    call(f"zi{i}", zero_d, np.array(i, dtype=np.int16), 0.5)
snapshot("acc", acc)
