# Lambdas and map/filter/sorted with key functions inside the hot function.
# expect: compiled order
import numpy as np
from _probe import call

key = lambda a: float(a.sum())  # noqa: E731


def order(arrays):
    sq = list(map(lambda a: a * a, arrays))
    big = [a for a in sq if key(a) > 5]
    return sorted(big, key=key), max(arrays, key=key), min(map(key, arrays))


for i in range(25):
    call(f"o{i}", order, [np.arange(3.0) * k - i % 3 for k in range(4)])
