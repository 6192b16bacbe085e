# Footgun: random draws replayed or skipped — the global stream, a seeded Generator
# and a reseed in the middle must give exactly CPython's numbers.
# expect: compiled
import numpy as np
from _probe import snapshot, call

gen = np.random.default_rng(3)


def jitter(x):
    return x + np.random.rand(*x.shape) + gen.standard_normal()


for i in range(30):
    if i == 25:
        np.random.seed(99)
    call(f"j{i}", jitter, np.zeros(2))
snapshot("gen", gen)
