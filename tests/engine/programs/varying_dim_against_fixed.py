# A dim that varies between calls (here: d's length) broadcast against a
# fixed one (s's length): when they differ NumPy raises ValueError, and the
# graph must not compute a result of the fixed size instead.
# expect: compiled accumulate
import numpy as np
from _probe import snapshot, call


def accumulate(s, d):
    s += d
    return s.sum()


s = np.zeros(3)
for j in range(7):
    call(f"same{j}", accumulate, s, np.ones(3) * j)
call("longer", accumulate, s, np.ones(4))
call("after", accumulate, s, np.ones(3))
t = np.zeros((2, 3))
for j in range(5):
    call(f"rows{j}", accumulate, t, np.arange(3.0) + j)
call("rows_wrong", accumulate, t, np.arange(5.0))
snapshot("s", s)
snapshot("t", t)
