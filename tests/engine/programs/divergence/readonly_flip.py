# Footgun: read-only arrays — an array made read-only after compilation, and a
# broadcast_to view (read-only by construction) passed as an output.
# expect: compiled inc
import numpy as np
from _probe import snapshot, call


def inc(a):
    a += 1
    return a.sum()


x = np.zeros(3)
for i in range(30):
    if i == 22:
        x.flags.writeable = False
    if i == 25:
        x = np.broadcast_to(np.zeros(3), (2, 3))
    if i == 28:
        x = np.zeros((2, 3))
    call(f"inc{i}", inc, x)
snapshot("x", x)
