# isinstance checks on argument types that change between calls.
# expect: compiled as_array_sum
import numpy as np
from _probe import call


def as_array_sum(v):
    if isinstance(v, np.ndarray):
        return v.sum(), "array"
    if isinstance(v, (list, tuple)):
        return sum(v), "sequence"
    if isinstance(v, bool):
        return int(v), "bool"
    if isinstance(v, int):
        return v * 2, "int"
    return float(v), "other"


vals = [np.arange(3.0)] * 12 + [[1, 2], (3, 4.5), True, 7, 2 ** 80, 1.5, np.float32(2),
                                np.arange(3), np.ones((2, 2), np.int8)] + [np.arange(3.0)] * 4
for i, v in enumerate(vals):
    call(f"d{i}", as_array_sum, v)
