# A while loop with a data-dependent trip count (Newton's method on arrays).
# expect: compiled newton_sqrt
import numpy as np
from _probe import call


def newton_sqrt(a, tol):
    x = np.maximum(a, 1.0)
    iters = 0
    while np.max(np.abs(x * x - a) / a) > tol and iters < 60:
        x = 0.5 * (x + a / x)
        iters += 1
    return x, iters


for i in range(25):
    call(f"n{i}", newton_sqrt, np.array([2.0, 10.0 ** (i % 8), 0.25]), 10.0 ** -(i % 12))
