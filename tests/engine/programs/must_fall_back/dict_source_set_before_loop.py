# A dict the function is given, given a new key before it is iterated: Python
# iterates the keys as they are after the write, a guard could only check
# them before the run. The function stays in CPython with the reason "for
# over a dict set earlier in the same run".
# must-not-convert: add_then_sum
import numpy as np
from _probe import snapshot, call


def add_then_sum(d, i):
    d["bias"] = np.full(2, 0.5)
    s = np.zeros(2)
    for k in d:
        s = s + d[k]
    return s


state = {"u": np.ones(2), "v": np.arange(2.0)}
for i in range(24):
    call(f"add{i}", add_then_sum, state, i)
snapshot("state", state)
