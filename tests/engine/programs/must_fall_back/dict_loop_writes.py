# A loop over a dict the function is given whose body writes the dict (here an
# existing key: Python allows it, and reads each value when it reaches it) is
# not converted; the function stays in CPython with the reason "for over a dict
# the loop body writes".
# must-not-convert: halve_all
import numpy as np
from _probe import snapshot, call


def halve_all(d):
    for k in d:
        d[k] = d[k] * 0.5
    return len(d)


state = {"u": np.ones(3), "v": np.arange(3.0)}
for i in range(24):
    call(f"halve{i}", halve_all, state)
snapshot("state", state)
