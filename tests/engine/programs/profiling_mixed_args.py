# A helper that sees a Python scalar, then arrays of one rank and different shapes,
# while the engine profiles it (its first calls): profiling must only record.
# expect: compiled describe
import numpy as np
from _probe import call


def describe(v):
    return np.shape(v), np.ndim(v), np.sum(v)


args = [1, 2, 1.0, np.zeros((2, 3)), np.ones((4, 5)), np.arange(3.0), np.eye(2), 7,
        np.ones((4, 5)), np.zeros((2, 2, 2))] * 3
for i, a in enumerate(args):
    call(f"d{i}", describe, a)
