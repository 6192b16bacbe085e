# Footgun: reduction order — sums whose bits depend on NumPy's pairwise blocking
# (float64 and float32), along contiguous and strided axes.
# expect: compiled total
import numpy as np
from _probe import call


def total(x):
    return x.sum(), x.sum(axis=0), x.sum(axis=1), x.T.sum(axis=1), np.mean(x, axis=0)


for i in range(24):
    x = np.tan(np.arange(513 * 9, dtype=np.float64) * (1.3 + i)).reshape(513, 9)
    call(f"f64_{i}", total, x)
    call(f"f32_{i}", total, x.astype(np.float32))
