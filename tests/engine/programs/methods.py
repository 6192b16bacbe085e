# Methods: bound methods of two instances sharing one code object, attribute reads
# and writes on self, and a method calling another method.
# expect: compiled Linear.__call__, Linear.grad_step
import numpy as np
from _probe import snapshot, call


class Linear:
    def __init__(self, n, m, seed):
        self.w = np.cos(np.arange(n * m, dtype=np.float64) + seed).reshape(n, m)
        self.b = np.zeros(m)
        self.updates = 0

    def __call__(self, x):
        return x @ self.w + self.b

    def grad_step(self, x, target, lr=0.05):
        err = self(x) - target
        self.w -= lr * x.T @ err
        self.b -= lr * err.sum(axis=0)
        self.updates += 1
        return float((err ** 2).mean())


a, b = Linear(3, 2, 0), Linear(3, 2, 1)
x = np.linspace(-1, 1, 12).reshape(4, 3)
t = np.ones((4, 2))
for i in range(25):
    call(f"a{i}", a.grad_step, x, t)
    call(f"b{i}", b.grad_step, x, t, lr=0.01)
snapshot("models", (a, b))
