# enumerate, zip and reversed over lists of arrays inside a hot function.
# expect: compiled weighted
import numpy as np
from _probe import call


def weighted(arrays, weights):
    total = np.zeros_like(arrays[0])
    for i, (a, w) in enumerate(zip(arrays, weights)):
        total += a * w * (i + 1)
    for a in reversed(arrays):
        total -= a[0]
    return total


for i in range(25):
    arrays = [np.arange(4.0) * k for k in range(1 + i % 4)]
    call(f"w{i}", weighted, arrays, [0.5, 2, 1.5, -1][: len(arrays) + i % 2])
