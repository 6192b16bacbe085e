# Boolean arrays with &, |, ^, ~, logical_* functions, sums of bools and any/all.
# expect: compiled logic
import numpy as np
from _probe import call


def logic(a, b):
    c = (a & b) | (~a ^ b)
    return (c, np.logical_and(a, b), np.logical_not(a), c.sum(), c.dtype, a.any(),
            b.all(), np.count_nonzero(a), (a + b).dtype, a * 1.5, -a.astype(int))


for i in range(25):
    a = (np.arange(8) % (i % 3 + 2)) == 0
    b = np.arange(8) > i % 8
    call(f"logic{i}", logic, a, b)
