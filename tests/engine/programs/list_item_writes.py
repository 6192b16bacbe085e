# List item writes from a hot function: constant and negative indices on a
# list argument, reads of the written items later in the call (hs[3] and
# hs[-1] are one item of a 4-item list, not of a 5-item one), an index past
# the end (CPython raises the IndexError, the earlier write of the call not
# committed twice), and `and` / `or` / `not` of int conditions.
# expect: compiled store
import numpy as np
from _probe import snapshot, call

hist = [np.zeros(3) for _ in range(4)]


def store(buf, x, k):
    buf[0] = x * 2.0
    buf[-1] = buf[0] + 1.0
    y = buf[3] - buf[-4] + buf[1]
    if k > 3 and not k % 5 == 0 or k == 1:
        y = y * 0.5
    buf[2] = y
    return y, len(buf)


for s in range(34):
    if s < 24:
        buf = hist
    elif s < 28:
        buf = hist + [np.ones(3)]
    else:
        buf = hist[:3]
    call(f"store{s}", store, buf, np.arange(3.0) + s, s)
snapshot("hist", hist)
