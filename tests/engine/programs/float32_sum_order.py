# float32 and float64 sums of long arrays with cancellation: NumPy's pairwise
# order, axis reductions and cumsum give particular bits.
# expect: compiled sums
import numpy as np
from _probe import call


def sums(x):
    return x.sum(), x.sum(axis=0), x.reshape(-1, 7).sum(axis=1), np.cumsum(x)[-3:], \
        x.mean(), np.add.reduce(x), (x * x).sum()


for i in range(24):
    x = (np.sin(np.arange(1001 * 7) * (0.37 + i)) * 10.0 ** (i % 9)).reshape(1001, 7)
    call(f"f64_{i}", sums, x.ravel())
    call(f"f32_{i}", sums, x.ravel().astype(np.float32))
