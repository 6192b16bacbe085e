# A coroutine function driven by hand many times: async code stays in CPython.
# must-not-convert: scaled_sum (untouched)
import numpy as np
from _probe import snapshot, call


class Ready:
    def __await__(self):
        yield "tick"
        return 2.0


async def scaled_sum(x):
    k = await Ready()
    x *= k
    return x.sum()


def drive(coro):
    ticks = 0
    try:
        while True:
            coro.send(None)
            ticks += 1
    except StopIteration as stop:
        return stop.value, ticks


x = np.ones(4)
for i in range(25):
    call(f"drive{i}", drive, scaled_sum(x))
snapshot("x", x)
