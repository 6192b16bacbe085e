# A global the hot function reads is changed between calls: a float, then an array,
# then an int, then an array mutated in place.
# expect: compiled scale
import numpy as np
from _probe import call

SCALE = 2.0
OFFSET = np.zeros(4)


def scale(x):
    return x * SCALE + OFFSET


x = np.arange(4.0)
for i in range(32):
    if i == 20:
        SCALE = 3.5
    if i == 23:
        OFFSET = np.ones(4)
    if i == 26:
        SCALE = 7
    if i == 29:
        OFFSET[2] = -100.0
    call(f"scale{i}", scale, x)
