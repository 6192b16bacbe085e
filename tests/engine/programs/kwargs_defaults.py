# Keyword arguments and defaults, passed in different orders and sometimes omitted.
# expect: compiled dense
import numpy as np
from _probe import call


def dense(x, w, b=None, *, scale=1.0, activation="relu"):
    h = x @ w * scale
    if b is not None:
        h = h + b
    if activation == "relu":
        return np.maximum(h, 0)
    return np.tanh(h)


x = np.linspace(-1, 1, 6).reshape(2, 3)
w = np.arange(6.0).reshape(3, 2) - 2
b = np.array([0.5, -0.5])
for i in range(26):
    if i % 4 == 0:
        call(f"d{i}", dense, x, w)
    elif i % 4 == 1:
        call(f"d{i}", dense, x, w, b, scale=0.5)
    elif i % 4 == 2:
        call(f"d{i}", dense, w=w, x=x, activation="tanh")
    else:
        call(f"d{i}", dense, x, w, b=b, activation="none", scale=2)
