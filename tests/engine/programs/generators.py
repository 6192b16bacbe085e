# Generators called many times: they must be left to CPython untouched (lazy,
# resumable, with their own state), including one feeding a hot function.
# expect: compiled consume
import numpy as np
from _probe import snapshot, call


def batches(x, size):
    for start in range(0, len(x), size):
        yield x[start:start + size]


def consume(gen):
    total = 0.0
    for b in gen:
        total += b.sum()
    return total


data = np.arange(20.0)
for i in range(25):
    call(f"consume{i}", consume, batches(data, 1 + i % 6))
half = batches(data, 4)
first = next(half)
snapshot("half", (first, half))
snapshot("rest", list(half))
