# Footgun: a closure cell's value baked in (the cell is rebound after compilation).
# expect: compiled scaled
import numpy as np
from _probe import call


def make():
    k = 2.0
    arr = np.ones(3)

    def scaled(x):
        return x * k + arr

    def set_k(v):
        nonlocal k
        k = v

    def set_arr(v):
        nonlocal arr
        arr = v

    return scaled, set_k, set_arr


scaled, set_k, set_arr = make()
for i in range(30):
    if i == 20:
        set_k(-1.5)
    if i == 23:
        set_arr(np.arange(3.0))
    if i == 26:
        set_k(np.float32(3))
    call(f"scaled{i}", scaled, np.arange(3.0))
