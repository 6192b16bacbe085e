# An object with a custom __getattr__ (computed, counted attributes): not convertible.
# must-not-convert: read_weights
import numpy as np
from _probe import snapshot, call


class Lazy:
    def __init__(self):
        self.hits = 0

    def __getattr__(self, name):
        self.hits += 1
        return np.full(3, float(len(name) + self.hits))


def read_weights(obj, x):
    return x * obj.weight + obj.bias


lazy = Lazy()
for i in range(25):
    call(f"rw{i}", read_weights, lazy, np.arange(3.0))
snapshot("lazy", lazy)
