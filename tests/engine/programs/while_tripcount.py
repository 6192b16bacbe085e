# `while` loops on specialised values, unrolled: the trip count depends on an int
# argument (changing after compilation) and on a break; a nested while.
# expect: compiled halvings, grid
import numpy as np
from _probe import snapshot, call


def halvings(n, x):
    steps = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        x = x * 0.5 + 1.0
        steps += 1
        if steps > 10:
            break
    return x, steps


def grid(rows, x):
    r = 0
    while r < rows:
        c = 0
        while True:
            c += 1
            if c > r:
                break
            x = x + r * c
        r += 1
    return x


for i in range(30):
    n = 6 if i < 20 else 7 + i
    call(f"halvings{i}", halvings, n, np.arange(4.0))
    call(f"grid{i}", grid, 3 if i < 22 else 4, np.zeros(3))
