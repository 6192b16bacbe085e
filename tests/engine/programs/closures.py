# Closures: a hot inner function reading a captured array and a nonlocal counter
# that it increments; the captured value is rebound between calls.
# expect: compiled step
import numpy as np
from _probe import snapshot, call


def make_optimizer(lr):
    velocity = np.zeros(3)
    count = 0

    def step(param, grad):
        nonlocal count, velocity
        count += 1
        velocity = 0.9 * velocity + grad
        param -= lr * velocity
        return count

    def set_lr(value):
        nonlocal lr
        lr = value

    return step, set_lr


step, set_lr = make_optimizer(0.1)
param = np.ones(3)
for i in range(28):
    if i == 21:
        set_lr(0.5)
    call(f"step{i}", step, param, np.array([1.0, -2.0, 0.5]))
snapshot("param", param)
snapshot("step", step)
