# Issue 25, item 3: threads calling a compiled function on one shared array.
# CPython's `W += g` on a small array is one ufunc call that keeps the GIL, so
# four threads lose no update. A graph run reads W, and its commit writes it:
# the commit must keep the GIL too (NumPy's own copy lets it go), and a run
# that prints at commit (the print's I/O lets other threads run between the
# graph's reads and its later writes) is left to CPython while threads run.
# The switch interval is made tiny so that any point where the GIL can go
# is taken. (A slice assignment `M[1:3] = M[1:3] + v` is left out: NumPy's
# own assignment lets the GIL go, so CPython itself loses updates there.)
# expect: compiled step
import sys
import threading

import numpy as np
from _probe import call, snapshot


def step(W, g):
    W += g
    return W[0]


def step_print(W, g):
    W += g
    print(".", end="")
    W += g
    return W[1]


for i in range(25):
    call(f"warm{i}", step, np.zeros(4), np.ones(4))
    call(f"warm_print{i}", step_print, np.zeros(4), np.ones(4))

sys.setswitchinterval(1e-6)
shapes = [(4,), (3, 3), (100,)]
for shape in shapes:
    W = np.zeros(shape)
    P = np.zeros(shape)
    g = np.ones(shape[-1])

    def worker():
        for _ in range(2000):
            step(W, g)
            step_print(P, g)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print()
    snapshot(f"shared {shape}", (W, P))
sys.setswitchinterval(0.005)
# Thread objects record their OS ident, which differs between runs.
del threads, t
