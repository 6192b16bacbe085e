# Early returns under `if` on array data (`if c: return a` then `return b`), in the
# hot function and in an inlined helper: the returned values (a tuple too) come
# from an IR conditional; the branch taken changes from call to call.
# expect: compiled loss_and_grad
import numpy as np
from _probe import snapshot, call


def huber(r, delta):
    a = np.abs(r).max()
    if a <= delta:
        return 0.5 * r * r
    return delta * (np.abs(r) - 0.5 * delta)


def loss_and_grad(w, x, xt, y):
    r = x @ w - y
    losses = huber(r, 1.0)
    total = losses.sum()
    if total > 10.0:
        return total * 0.5, xt @ np.clip(r, -1.0, 1.0)
    elif total < 0.01:
        scale = total * 0.0
    else:
        scale = total / 10.0
    return total * scale, xt @ r


x = np.linspace(-1, 1, 12).reshape(4, 3)
w = np.array([0.2, -0.1, 0.05])
xt = np.ascontiguousarray(x.T)
for i in range(30):
    y = np.array([0.1, -0.2, 0.3, 0.0]) * (i % 7) - (i % 4 == 0) * 3.0
    call(f"loss_and_grad{i}", loss_and_grad, w, x, xt, y)
