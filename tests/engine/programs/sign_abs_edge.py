# Edge values of elementwise functions: sign of -0.0 and NaN, sqrt of negatives,
# log of zero, log1p near -1, abs of the int minimum, exp overflow; with warnings.
# expect: compiled edges
import numpy as np
from _probe import call


def edges(x, i):
    return (np.sign(x), np.abs(x), np.sqrt(x), np.log(x), np.log1p(x), np.exp(x * 1000),
            np.tanh(x * 1e3), np.abs(i), np.sign(i), -x, x ** 0.5, 1.0 / x)


x = np.array([-0.0, 0.0, -1.0, 1e-300, np.nan, np.inf, -np.inf, -1e-17, 0.7])
ints = np.array([np.iinfo(np.int64).min, -1, 0, 5], dtype=np.int64)
for k in range(25):
    call(f"e{k}", edges, x * (1 + k % 3), ints + (k % 2))
