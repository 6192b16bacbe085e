# Boolean masks: masked reads with data-dependent result sizes and masked writes.
# expect: compiled clean
import numpy as np
from _probe import snapshot, call


def clean(x, limit):
    bad = ~np.isfinite(x) | (np.abs(x) > limit)
    kept = x[~bad]
    x[bad] = 0.0
    return kept, bad.sum(), kept.mean() if kept.size else 0.0


data = np.array([1.0, np.nan, -5.0, np.inf, 2.5, -np.inf, 7.0, 0.5])
for i in range(25):
    x = data * (i - 12)
    with np.errstate(invalid="ignore"):
        call(f"clean{i}", clean, x, 30.0)
    snapshot(f"x{i}", x)
