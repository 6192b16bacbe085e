# A loop whose trip count changes between calls (and once is zero).
# expect: compiled power_sum
import numpy as np
from _probe import snapshot, call

base = np.linspace(0.5, 1.5, 7)


def power_sum(x, n):
    acc = np.zeros_like(x)
    term = np.ones_like(x)
    for _ in range(n):
        term = term * x
        acc += term
    return acc


for i in range(30):
    n = 5 if i < 20 else (i % 4) * 3
    call(f"n={n}#{i}", power_sum, base, n)
snapshot("base", base)
