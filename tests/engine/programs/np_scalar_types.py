# np.float32(x) / np.float64(x) called as functions: a learning rate fixed to
# float32 (a specialised global, then one that changes every call), a step
# counter (a Python int known only at run time, rounded through a double as
# NumPy does), a loss reduced to a NumPy scalar, a 0-d array, a bool; and the
# forms that stay in CPython (an array of rank >= 1, whose np.float64 is the
# argument itself; an int beyond float32's exact range).
# expect: compiled sgd, scaled, loss_of, zero_d, flags, mixed
import numpy as np
from _probe import call

lr = 0.01


def sgd(w, g):
    w -= np.float32(lr) * g
    return w.dtype, float(w[0])


def scaled(x, step):
    return np.float32(step) * x, np.float64(step) / 3.0


def loss_of(a):
    total = np.float64(np.sum(a * a))
    return total, np.float32(total), np.float32(a[0]) * np.float32(2.0)


def zero_d(z):
    return np.float32(z) + np.float32(1.5), np.float64(z * 2.0)


def flags(x, on):
    return np.float32(on) + np.float32(0.25), np.float64(True) - np.float64(on)


def mixed(x, on):
    return x * np.float32(on)


def whole(a):
    return np.float64(a) is a        # stays in CPython: rank >= 1


def big(x):
    return x * np.float32(16777217)  # stays in CPython: not exact in float32


rng = np.random.default_rng(7)
w = rng.standard_normal(64).astype(np.float32)
xf = rng.standard_normal(32).astype(np.float32)
xd = rng.standard_normal(32)
for i in range(20):
    g = rng.standard_normal(64).astype(np.float32)
    call(f"sgd{i}", sgd, w, g)
    if i == 10:
        lr = 0.003 + i * 1e-4          # a changed global: guard miss, then a new value
    call(f"scaled{i}", scaled, xf, i * 7919 + (1 << 25 if i % 5 == 4 else 0))
    call(f"loss{i}", loss_of, xd * (i + 1))
    call(f"zero_d{i}", zero_d, np.array(0.1 * i))
    call(f"flags{i}", flags, xf, i % 2 == 0)
    call(f"mixed{i}", mixed, xf, i % 2 == 0)
    call(f"whole{i}", whole, xd)
    call(f"big{i}", big, xf)
