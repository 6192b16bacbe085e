# var/std with ddof (including ddof >= n, giving inf/nan with a warning), axes and
# integer inputs.
# expect: compiled spread
import numpy as np
from _probe import call


def spread(x, ddof):
    return x.var(ddof=ddof), x.std(axis=0, ddof=ddof), np.var(x, axis=1), np.std(x)


for i in range(25):
    x = (np.arange(12) ** 2 % (5 + i)).reshape(3, 4)
    call(f"s{i}", spread, x, i % 5)
    call(f"sf{i}", spread, x * 0.1, 0)
