# A callee inlined into the hot function changes after compilation in every way
# Python allows: the global name is rebound, the function's __code__ is swapped,
# its __defaults__ are replaced, and a mutable default array is changed in place.
# Each must be a guard miss (or a read of the new value), never a stale graph.
# expect: compiled predict
import numpy as np
from _probe import snapshot, call

bias_default = np.zeros(2)


def activate(z, slope=1.0, bias=bias_default):
    return np.maximum(z * slope, 0.0) + bias


def squash(z, slope=1.0, bias=bias_default):
    return np.tanh(z * slope) + bias


def predict(x, w):
    return activate(x @ w).sum(axis=0)


x = np.linspace(-2, 2, 12).reshape(4, 3)
w = np.arange(6.0).reshape(3, 2) - 2.5
original = activate
original_code = activate.__code__
for i in range(34):
    if i == 20:
        activate.__code__ = squash.__code__
    if i == 22:
        activate.__code__ = original_code
        activate.__defaults__ = (0.5, bias_default)
    if i == 25:
        bias_default += 1.0  # the default array, changed in place
    if i == 27:
        activate.__defaults__ = (2.0, np.ones(2))
    if i == 29:
        activate = squash
    if i == 31:
        activate = original
    call(f"predict{i}", predict, x, w)
