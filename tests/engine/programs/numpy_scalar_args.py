# NumPy scalars as arguments and globals: a loss kept from the previous call
# (np.float64), a float32 learning rate, an int64 step, a NumPy bool flag.
# They are graph inputs read on every call (never specialised on their value);
# their exact type is guarded, so a Python float, a float32 in place of a
# float64 or a 0-d array in their place misses the guard or recompiles, and
# results keep NumPy's types (np.float64 * float -> np.float64).
# expect: compiled step, scaled, decay, blend
import numpy as np
from _probe import call

rng = np.random.default_rng(3)
w = rng.standard_normal((4, 3))
x = rng.standard_normal((5, 4))
w32 = w.astype(np.float32)
lr32 = np.float32(0.125)
step_count = np.int64(0)
use_bias = np.bool_(True)


def step(w, x, prev_loss):
    y = np.tanh(x @ w)
    loss = (y * y).sum()
    improve = prev_loss - loss
    return loss, improve, loss * 0.5, prev_loss / 3.0


def scaled(w32, lr):
    # float32 array times a float32 scalar stays float32 whatever the value.
    return w32 - lr * w32, lr * 2, lr + lr


def decay(x, k):
    # An int64 scalar with an array: NumPy's array loops (no overflow check).
    return x * k, float(k) + 0.5, k > 100


def count_up(k):
    # NumPy's scalar math checks int64 overflow and warns: stays in CPython.
    return k * 3, k // 2


def blend(x, flag, s):
    if flag:
        return np.where(x > 0, x * s, x)
    return x - s


loss = np.float64(1.0)
for i in range(30):
    loss, improve, half, third = call(f"step{i}", step, w, x, loss)
for i in range(25):
    call(f"scaled{i}", scaled, w32, lr32 * np.float32(i + 1))
for i in range(25):
    step_count = step_count + np.int64(7)
    call(f"decay{i}", decay, x, step_count)
    call(f"count_up{i}", count_up, step_count)
for i in range(25):
    call(f"blend{i}", blend, x, use_bias if i % 7 else np.bool_(False), np.float64(i) / 4)

# Traps after compilation: a Python float where np.float64 was, a float32 for
# float64, a 0-d array, an int where int64 was, a huge int64 (wraps in NumPy).
call("step_pyfloat", step, w, x, 2.5)
call("step_f32", step, w, x, np.float32(2.5))
call("step_0d", step, w, x, np.array(2.5))
call("step_nan", step, w, x, np.float64("nan"))
call("decay_pyint", decay, x, 9)
call("decay_big", decay, x, np.int64(2**62))
call("count_up_big", count_up, np.int64(2**62))
call("scaled_f64", scaled, w32, np.float64(1e300))
