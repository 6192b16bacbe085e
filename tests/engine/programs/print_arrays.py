# Printing arrays, repr of scalars and f-strings inside the hot function, with
# print options changed between calls.
# expect: compiled show
import numpy as np
from _probe import call


def show(x, i):
    print(x)
    print(repr(x.sum()), f"{x.mean()!r}", f"{x[0]:.3e}", str(x.dtype))
    print(np.float32(x[1]), x.astype(np.float32)[:2], x[:2].tolist(), sep="|")
    return i


x = np.linspace(0, 1, 7) / 3
for i in range(26):
    if i == 22:
        np.set_printoptions(precision=3, suppress=True)
    if i == 24:
        np.set_printoptions(threshold=3, edgeitems=1)
    call(f"show{i}", show, x * (i + 1), i)
