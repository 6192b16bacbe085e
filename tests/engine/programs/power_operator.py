# expect: compiled powers, int_powers, in_place_square, np_power
# `x ** 2`, `x ** 0.5` and `x ** -1` on arrays are square, sqrt and reciprocal
# in NumPy (not the power loop): last bits, signed zeros and infinities differ.
import numpy as np

from _probe import call, snapshot


def powers(x):
    return x ** 2, x ** 0.5, x ** -1, x ** 2.0, x ** 3, x ** 1.5, (x * 0.5) ** 2


def int_powers(k):
    return k ** 2, k ** 2.0, k ** 3


def in_place_square(x):
    y = x * 1.000001
    y **= 2
    return y


def np_power(x):
    return np.power(x, 2), np.power(x, 0.5)


rng = np.random.default_rng(7)
x = np.concatenate([rng.standard_normal(40) * 3.0, [0.0, -0.0, np.inf, -np.inf, 1e-300]])
x32 = x.astype(np.float32)
k = np.arange(-20, 20, dtype=np.int32)
with np.errstate(all="ignore"):
    for i in range(24):
        snapshot(f"p{i}", call("powers", powers, x + i / 7))
        snapshot(f"p32_{i}", call("powers", powers, x32))
        snapshot(f"k{i}", call("int_powers", int_powers, k + i))
        snapshot(f"s{i}", call("in_place_square", in_place_square, x))
        snapshot(f"n{i}", call("np_power", np_power, x + i))
