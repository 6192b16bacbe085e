# A generator function called many times: the frame hook must hand its frames to
# CPython untouched (lazy, resumable, state kept in the generator).
# must-not-convert: running_mean (untouched)
import numpy as np
from _probe import snapshot, call


def running_mean(xs):
    total = np.zeros_like(xs[0])
    for n, x in enumerate(xs, 1):
        total += x
        yield total / n


data = [np.arange(3.0) * k for k in range(5)]
for i in range(25):
    g = running_mean(data)
    call(f"first{i}", next, g)
    call(f"rest{i}", list, g)
paused = running_mean(data)
next(paused)
snapshot("paused", paused)
snapshot("data", data)
