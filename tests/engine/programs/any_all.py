# np.any / np.all as IR reductions: functions and methods, on bool, float (NaN
# and -0.0 included) and int arrays, with axis and keepdims; in an `if` on array
# data (observed side or IR IF) and in a `while` test (an IR LOOP with a
# condition, the trip count changing on every call).
# expect: compiled flags, pick, shrink
import numpy as np
from _probe import snapshot, call


def flags(x, y, m):
    a = x.any()
    b = np.all(x > 0.0)
    c = np.any(m, axis=0)
    d = m.all(axis=1, keepdims=True)
    e = np.all(y)
    g = np.any(y != 0, axis=1)
    h = np.all(x, axis=0, keepdims=True)
    return a, b, c, d, e, g, h


def pick(x):
    if np.any(x < -0.5):
        s = x * 2.0
    else:
        s = x * 3.0
    return s


def shrink(x):
    n = 0
    while np.any(np.abs(x) > 1.0):
        x = x * 0.5
        n += 1
    return x, n


for k in range(30):
    x = np.linspace(-1.0, 1.0, 6) * (k % 7 - 3)
    y = (np.arange(12).reshape(3, 4) % (k % 5 + 2)).astype(np.int64)
    m = y > 1
    call(f"flags{k}", flags, x, y, m)
    call(f"flags_nan{k}", flags, np.array([np.nan, 0.0, -0.0]) * (k % 2), y, m)
    call(f"pick{k}", pick, x)
    call(f"shrink{k}", shrink, x * 10.0 ** (k % 4))
