# A division by zero followed by a row-wise max (NumPy's maximum loop clears
# the FP status word when it finishes): the graph must still see the flag
# the division raised, so the call raises or warns exactly as in CPython.
# expect: compiled scaled_row_max
import numpy as np
from _probe import call


def scaled_row_max(a, b):
    x = a / b
    return x.max(axis=1)


rng = np.random.default_rng(11)
a = rng.random((50, 64))
b = rng.random((50, 64)) + 0.5
zero_b = b.copy()
zero_b[12, 30] = 0.0
for i in range(8):
    call(f"plain{i}", scaled_row_max, a, b)
for i in range(4):
    with np.errstate(divide="raise"):
        call(f"raise{i}", scaled_row_max, a, zero_b)
    with np.errstate(divide="ignore"):
        call(f"ignore{i}", scaled_row_max, a, zero_b)
    call(f"after{i}", scaled_row_max, a, b)
