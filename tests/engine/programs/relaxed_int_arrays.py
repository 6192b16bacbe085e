# Python ints that change on every call (a step counter, an epoch, a scale)
# mixed with float64, float32 and int32/int64 arrays: after the first miss
# the int is an int64 graph input, so one graph serves every value. NumPy
# 1.24 promotes a Python int with an array by its value (float32 * 300 stays
# float32, float32 * 70000 is float64; int32 + 2**31 is int64): a graph
# holds one result dtype, guarded on the int's value class, and a value of
# another class misses the guard and recompiles. Values near 2**31, 2**63,
# negative, and a Python int beyond 64 bits (NumPy gives an object array:
# CPython runs that call) are all met by compiled graphs.
# Small integer and bool arrays change dtype with the int's class
# (uint8 + 300 is uint16, outside the graphs' dtypes: those values stay
# specialised; bool + t is int64 for every t).
# expect: compiled decay, scale64, scale32, shift32, mix64, filled, ratio, small_ints
import numpy as np
from _probe import snapshot, call

rng = np.random.default_rng(11)
w64 = rng.standard_normal(5)
w32 = rng.standard_normal(5).astype(np.float32)
i32 = np.array([-7, 0, 3, 2**31 - 1, -(2**31)], dtype=np.int32)
i64 = np.array([-7, 0, 3, 2**40, -(2**62)], dtype=np.int64)
u8 = np.array([0, 1, 127, 200, 255], dtype=np.uint8)
s16 = np.array([-300, -1, 0, 7, 32767], dtype=np.int16)
flags = np.array([True, False, True, True, False])


def decay(w, g, lr, t):
    # SGD with a 1/(1 + t) schedule, updated in place.
    w -= (lr / (1 + t)) * g
    return w * t


def scale64(x, t):
    return x * t - t, x / t, np.maximum(x, t), x < t


def scale32(x, t):
    return x * t + 1.0, t - x, x >= t


def shift32(a, t):
    return a + t, a * t, t - a, np.minimum(a, t), a == t


def mix64(a, t):
    return a * t, a - t, a > t


def filled(t):
    return np.full(3, t), np.full((2, 2), t) + 1


def small_ints(u, s, b, t):
    return u + t, s * t, b + t, u < t


def ratio(x, n):
    return x / n


steps = list(range(-6, 30)) + [127, 128, 255, 256, 32767, 32768, 65535, 65536, -129, -32769,
                                  2**31 - 2, 2**31 - 1, -(2**31), 2**31, 2**32, -(2**31) - 1,
                                  2**40, 2**62, 2**63 - 1, -(2**63), 2**63, 2**64 + 5,
                                  -(2**64) - 1, 7, 8, 9]
for i, t in enumerate(steps):
    call(f"decay{i}", decay, w64, np.full(5, 0.5), 0.1, t)
    call(f"scale64_{i}", scale64, w64, t)
    call(f"scale32_{i}", scale32, w32, t)
    call(f"shift32_{i}", shift32, i32, t)
    call(f"mix64_{i}", mix64, i64, t)
    call(f"filled{i}", filled, t)
    call(f"ratio{i}", ratio, w32, t if t != 0 else 1)
    call(f"small{i}", small_ints, u8, s16, flags, t)
snapshot("w64", w64)
