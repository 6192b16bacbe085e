# In-place operators that NumPy refuses (int array += float: UFuncTypeError) and
# incompatible in-place broadcasting, after earlier effects in the same call.
# expect: compiled accumulate
import numpy as np
from _probe import snapshot, call

ints = np.zeros(4, dtype=np.int64)
floats = np.zeros(4)


def accumulate(delta):
    floats[:] += delta
    ints[:] += np.ones(4, dtype=np.int64)
    ints[:] += delta
    return ints.sum()


for i in range(26):
    d = np.arange(4) if i % 5 else np.arange(4) * 0.5
    if i == 25:
        d = np.arange(3)
    call(f"acc{i}", accumulate, d)
snapshot("state", (ints, floats))
