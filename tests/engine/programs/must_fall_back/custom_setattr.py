# An object with a custom __setattr__ that records every write: not convertible.
# must-not-convert: update
import numpy as np
from _probe import snapshot, call


class Audited:
    def __init__(self):
        object.__setattr__(self, "log", [])
        object.__setattr__(self, "w", np.zeros(2))

    def __setattr__(self, name, value):
        self.log.append(name)
        object.__setattr__(self, name, value)


def update(obj, g):
    obj.w = obj.w - 0.1 * g
    return obj.w.sum()


a = Audited()
for i in range(25):
    call(f"u{i}", update, a, np.array([1.0, -1.0]) * i)
snapshot("a", a)
