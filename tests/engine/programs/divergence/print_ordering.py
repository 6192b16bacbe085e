# Footgun: print ordering — buffered prints must come out in program order, mixed
# with prints outside the function, with end= and sep= and a flush in between.
# expect: compiled chatty
import sys
import numpy as np
from _probe import call


def chatty(x, i):
    print("a", i, end=" ")
    y = np.sqrt(x)
    print("b", y.sum(), sep="=")
    sys.stdout.flush()
    print("c", x.shape, flush=True)
    if i % 4 == 3:
        raise ValueError(f"bad {i}")   # prints before the raise must still appear
    print("d")
    return y


for i in range(26):
    print(f"[{i}]", end="")
    call(f"chatty{i}", chatty, np.arange(4.0) * i, i)
