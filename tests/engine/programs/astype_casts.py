# astype conversions: float -> int truncation, negatives to unsigned, bool, NaN
# and inf to int (with NumPy's RuntimeWarning), copy=False identity.
# expect: compiled casts
import numpy as np
from _probe import call


def casts(x):
    return (x.astype(np.int32), x.astype(np.uint8), x.astype(bool), x.astype(np.float32),
            x.astype(np.int64).astype(np.float64), x.astype(np.float64, copy=False) is x,
            (x * 1e10).astype(np.int16), x.astype(np.int8, casting="unsafe"))


base = np.array([-2.7, -0.5, 0.0, 0.5, 2.5, 3.99, 255.5, 1e3])
for i in range(24):
    call(f"c{i}", casts, base * (1 + i % 3))
    if i % 6 == 5:
        call(f"nan{i}", casts, np.array([np.nan, np.inf, -np.inf]))
