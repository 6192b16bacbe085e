# np.arange with float bounds and steps, specialised: the graph must hold NumPy's
# exact values (count ceil((stop - start) / step); a[i] = start + i * (a[1] - a[0])),
# including negative and non-representable steps, a float start with int stop, a
# count that rounds up on the last element, and a single float argument.
# expect: compiled ramps, scaled_ramp
import numpy as np
from _probe import snapshot, call

CASES = [
    (0.0, 1.0, 0.1), (0.1, 0.95, 0.05), (1.0, -1.0, -0.3), (-2.5, 2.5, 0.7),
    (0.0, 1.0, 1.0 / 3.0), (1e-3, 2e-3, 1e-4), (10.0, 11.0, 0.1), (0.3, 0.0, -0.1),
    (-1e6, 1e6 + 0.5, 123456.789), (0.0, 0.3, 0.1), (1.0, 1.0, 0.1), (2, 7.5, 1),
]


def ramps(x):
    total = x * 0.0
    a = np.arange(0.0, 1.0, 0.1)
    b = np.arange(1.0, -1.0, -0.3)
    c = np.arange(0.1, 0.95, 0.05)
    d = np.arange(2.5)
    e = np.arange(3, 4.01, 0.25)
    total = total + a.sum() + b.sum() * 2.0 + c.sum() * 3.0 + d.sum() + e.sum()
    return total, a, b, c, d, e


def scaled_ramp(x, k):
    start, stop, step = CASES[k]
    r = np.arange(start, stop, step)
    return r * x[0] + x[1], r


for i in range(24):
    x = np.array([1.0 + i, 0.5 * i])
    call(f"ramps{i}", ramps, x)
    call(f"scaled{i}", scaled_ramp, x, i % 3 if i < 18 else 3 + i % 9)
for k, (start, stop, step) in enumerate(CASES):
    snapshot(f"numpy{k}", np.arange(start, stop, step))
