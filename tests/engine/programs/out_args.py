# `out=` arguments: into a preallocated buffer, into the input itself, into a view,
# and with a dtype cast on output.
# expect: compiled fused
import numpy as np
from _probe import snapshot, call

buf = np.empty((3, 4))
ibuf = np.zeros((3, 4), dtype=np.int64)


def fused(x, y):
    np.add(x, y, out=buf)
    np.tanh(buf, out=buf)
    np.multiply(x, 2.0, out=x)
    np.clip(buf, -0.5, 0.5, out=buf)
    np.dot(x, y.T, out=sq)
    np.floor_divide(x, 0.7, out=ibuf, casting="unsafe")
    return buf


sq = np.empty((3, 3))
for i in range(25):
    x = np.linspace(-2, 2, 12).reshape(3, 4) + i
    y = np.cos(np.arange(12.0) + i).reshape(3, 4)
    r = call(f"fused{i}", fused, x, y)
    snapshot(f"state{i}", (r is buf, x, buf, sq, ibuf))
