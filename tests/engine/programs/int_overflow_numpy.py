# NumPy integer overflow: arrays wrap silently; NumPy integer scalars warn; abs of
# the minimum value stays negative; Python ints from .item() never wrap.
# expect: compiled overflow
import numpy as np
from _probe import call


def overflow(a, s):
    return (a * 3, a + a, np.abs(a), -a, a.sum(), a.astype(np.int64).sum(),
            s * s, s + np.int32(1), a[0].item() * 10 ** 20)


a32 = np.array([2 ** 31 - 1, -2 ** 31, 123456789], dtype=np.int32)
for i in range(24):
    s = np.int64(2 ** 62 + i)
    call(f"o{i}", overflow, a32 - i, s)
