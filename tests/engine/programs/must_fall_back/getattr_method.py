# A method called on an object whose class defines __getattr__ (attributes may be
# computed by code): the method is not inlined and the caller stays in CPython.
# must-not-convert: apply
import numpy as np
from _probe import snapshot, call


class Proxy:
    def __init__(self):
        self.lookups = 0

    def __getattr__(self, name):
        self.lookups += 1
        return lambda v: v * 2.0

    def scale(self, v):
        return v * 3.0


def apply(p, v):
    return p.scale(v) + p.shift(v)


p = Proxy()
for i in range(25):
    call(f"apply{i}", apply, p, np.arange(3.0) + i)
snapshot("p", p)
