# A dict built by the code and changed on one side of an if on array data: the
# graph would need a conditional dict, so the function stays in CPython.
# must-not-convert: tag
import numpy as np
from _probe import call


def tag(x):
    out = {"x": x}
    if x.sum() > 0:
        out["sign"] = 1
    return out


for i in range(25):
    call(f"tag{i}", tag, np.arange(3.0) - i % 3)
