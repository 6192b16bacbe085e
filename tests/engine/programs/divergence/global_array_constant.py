# Footgun: a global array's contents folded into the graph as a constant, then
# mutated in place (same object, new values) after compilation.
# expect: compiled embed
import numpy as np
from _probe import call

TABLE = np.arange(10.0)


def embed(ids):
    return TABLE[ids] * 2


for i in range(30):
    if i == 21:
        TABLE[3] = -1.0
    if i == 24:
        TABLE[:] = TABLE[::-1].copy()
    call(f"embed{i}", embed, np.array([1, 3, 5]))
