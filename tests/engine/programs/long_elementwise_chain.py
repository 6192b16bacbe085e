# expect: compiled chain16, chain40
# Long unrolled elementwise chains: more values than one fused kernel program
# holds, so the backend must split them (or run them node by node), never
# drop them.
import numpy as np

from _probe import call, snapshot


def chain16(x):
    for _ in range(16):
        x = x * 0.5 + 1.0
    return x


def chain40(x, y):
    acc = x
    for k in range(40):
        acc = acc * (0.9 + k / 1000) + y * 0.25 - 1.0
    return acc, np.tanh(acc) * x


rng = np.random.default_rng(4)
x = rng.standard_normal(37)
y = rng.standard_normal(37)
for i in range(24):
    snapshot(f"c16_{i}", call("chain16", chain16, x + i))
    snapshot(f"c40_{i}", call("chain40", chain40, x, y * i))
