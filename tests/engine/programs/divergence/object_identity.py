# Footgun: object identity — returning an argument itself, the same object twice,
# `is` tests inside the function, and in-place operators keeping identity.
# expect: compiled ident
import numpy as np
from _probe import snapshot, call


def ident(x, y):
    z = x
    z += 1                  # same object as x
    same = z is x
    w = y if y is not None else x
    return x, z, w, same, w is x, np.asarray(x) is x, x.view() is x


for i in range(25):
    x = np.arange(3.0)
    r = call(f"id{i}", ident, x, None if i % 2 else np.zeros(2))
    snapshot(f"pair{i}", (x, r))
