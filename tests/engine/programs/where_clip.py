# np.where and np.clip with scalar and array bounds, on floats and ints, including
# clip with lower > upper and a bound of a wider type.
# expect: compiled squash
import numpy as np
from _probe import call


def squash(x, lo, hi):
    return (np.where(x > 0, x, -x), np.where(x > 1, 1, x), np.clip(x, lo, hi),
            np.clip(x, hi, lo), x.clip(0), np.clip(x, np.zeros_like(x), None))


for i in range(24):
    call(f"f{i}", squash, np.linspace(-3, 3, 7) + i / 10, -1.5, 2.0)
    call(f"i{i}", squash, np.arange(-3, 4) * i, -2, 7)
    call(f"u{i}", squash, np.arange(5, dtype=np.uint8), 1, 300)
