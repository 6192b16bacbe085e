# np.random inside a hot function: the global stream, a RandomState and a Generator
# must be consumed exactly as in CPython (these calls stay in CPython).
# expect: compiled
import numpy as np
from _probe import snapshot, call

np.random.seed(7)
rs = np.random.RandomState(8)
gen = np.random.default_rng(9)


def noisy(x):
    a = x + np.random.standard_normal(x.shape)
    b = a * rs.uniform(0.5, 1.5)
    c = b + gen.integers(0, 10, size=x.shape)
    return c


x = np.zeros(4)
for i in range(25):
    call(f"noisy{i}", noisy, x)
snapshot("rs", rs)
snapshot("gen", gen)
