# np.copyto(dst, src): a whole array written in place (broadcast, a same-kind
# cast, a Python float known at conversion or only at run time, a bool), then
# read in the same call; the forms NumPy refuses (a float into an int array:
# TypeError) or that take options (where=, casting=) stay in CPython.
# expect: compiled fill, fill_row, fill_cast, fill_scalar, fill_flag, fill_then_read
import numpy as np
from _probe import call

scale = 0.5


def fill(out, h):
    np.copyto(out, np.tanh(h))
    return out.sum()


def fill_row(out, row):
    np.copyto(out, row)          # (n,) broadcast over (m, n)
    return out[0, 0]


def fill_cast(out32, x64):
    np.copyto(out32, x64 * 2.0)  # float64 -> float32: same kind
    return out32.dtype


def fill_scalar(out, step):
    np.copyto(out, scale * step)
    return out[-1, -1]


def fill_flag(out, flag):
    np.copyto(out, flag)          # a Python bool: 1.0 or 0.0
    return out.sum()


def fill_then_read(buf, x):
    np.copyto(buf, x)
    buf *= 2.0
    return buf + x


def refused_int(out_int, x):
    np.copyto(out_int, x)        # TypeError in NumPy: float64 into int64
    return out_int


def with_where(out, x):
    np.copyto(out, x, where=x > 0)
    return out


rng = np.random.default_rng(3)
out = np.zeros((4, 6))
out32 = np.zeros(6, dtype=np.float32)
buf = np.empty(5)
for i in range(16):
    h = rng.standard_normal((4, 6))
    call(f"fill{i}", fill, out, h)
    call(f"row{i}", fill_row, out, rng.standard_normal(6))
    call(f"cast{i}", fill_cast, out32, rng.standard_normal(6))
    call(f"scalar{i}", fill_scalar, out, 1.5 * i + 0.25)
    call(f"flag{i}", fill_flag, out32, i % 3 == 0)
    call(f"read{i}", fill_then_read, buf, rng.standard_normal(5))
    call(f"int{i}", refused_int, np.zeros(3, dtype=np.int64), rng.standard_normal(3))
    call(f"where{i}", with_where, out, h)
    if i == 8:
        scale = 0.25
