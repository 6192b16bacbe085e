# Footgun: stale attribute reads — an attribute changed from outside between calls,
# an attribute written then re-read in the same call, and an attribute deleted.
# expect: compiled Model.forward
import numpy as np
from _probe import snapshot, call


class Model:
    def __init__(self):
        self.w = np.ones(3)
        self.scale = 1.0

    def forward(self, x):
        self.scale = self.scale * 1.01       # write, then read back below
        y = x * self.w * self.scale
        self.last = y
        return y.sum() + self.last[0]


m = Model()
for i in range(30):
    if i == 20:
        m.w = np.arange(3.0)          # rebinding the attribute
    if i == 23:
        m.w[1] = 100.0                # mutating the array the attribute holds
    if i == 26:
        del m.w                       # AttributeError from then on
    call(f"f{i}", m.forward, np.ones(3))
snapshot("m", m)
