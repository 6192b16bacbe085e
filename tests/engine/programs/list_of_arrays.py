# A list of arrays mutated in place and by item replacement; one element aliases another.
# expect: compiled roll
import numpy as np
from _probe import snapshot, call


def roll(buffers, new):
    buffers[0] += new
    buffers[-1] = buffers[0] * 2
    buffers.insert(1, new)
    buffers.pop()
    return len(buffers)


a = np.zeros(3)
buffers = [a, a, np.ones(3)]
for i in range(25):
    call(f"roll{i}", roll, buffers, np.full(3, float(i)))
snapshot("buffers", buffers)
snapshot("a", a)
