# A function compiled for plain arrays then called with an ndarray subclass that
# carries metadata and overrides __array_finalize__: those calls must fall back.
# expect: compiled normalise
import numpy as np
from _probe import snapshot, call


class Tagged(np.ndarray):
    def __array_finalize__(self, obj):
        self.tag = getattr(obj, "tag", "none") + "+"


def normalise(x):
    return (x - x.mean()) / (x.std() + 1e-9)


for i in range(30):
    x = np.arange(6.0) ** 2 + i
    if i >= 22:
        x = x.view(Tagged)
        x.tag = f"t{i}"
    r = call(f"norm{i}", normalise, x)
    snapshot(f"r{i}", (type(r).__name__, getattr(r, "tag", None)))
