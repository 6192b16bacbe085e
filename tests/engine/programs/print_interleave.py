# Prints inside a hot function interleaved with prints outside it and writes to
# stderr; the text and its order must be exactly CPython's.
# expect: compiled step
import sys
import numpy as np
from _probe import call


def step(i, x):
    print("step", i, "start")
    y = x * i
    print(f"mean={y.mean():.6f}", y[:3], sep=" | ", end=";\n")
    if i % 5 == 0:
        print("five!", file=sys.stderr)
    print(y.dtype, y.shape)
    return y.max()


x = np.linspace(0, 1, 9)
for i in range(25):
    print(f"-- before {i}")
    call(f"step{i}", step, i, x)
    sys.stdout.write(f"-- after {i}\n")
    sys.stderr.write(f"err {i}\n")
