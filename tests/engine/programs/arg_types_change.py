# The argument types change under the compiled function: float64 -> float32 ->
# int -> a Python list -> a Python float -> back (guard miss, then relax).
# expect: compiled affine
import numpy as np
from _probe import call


def affine(x):
    return 3 * x + 1


args = ([np.arange(4.0)] * 8 + [np.arange(4, dtype=np.float32)] * 4
        + [np.arange(4)] * 4 + [2.5, 7, True, (1, 2)] + [np.arange(4.0)] * 6
        + [np.arange(6.0).reshape(2, 3)] * 2)
for i, a in enumerate(args):
    call(f"affine{i}", affine, a)
