# globals() and getattr/setattr with computed names inside a hot function.
# expect: compiled
import numpy as np
from _probe import snapshot, call

weight_a = np.ones(2)
weight_b = np.ones(2) * 2


class Box:
    pass


box = Box()


def dynamic(name, i):
    w = globals()["weight_" + name]
    w *= 1.5
    setattr(box, f"last_{name}", i)
    return getattr(box, f"last_{name}") + w.sum()


for i in range(25):
    call(f"dyn{i}", dynamic, "ab"[i % 2], i)
snapshot("box", box)
