# Methods inlined into the hot function, then overridden: on one instance (an
# instance attribute shadowing the method), in a subclass whose instance is passed
# instead, and on the class itself.
# expect: compiled Model.step
import numpy as np
from _probe import snapshot, call


class Model:
    def __init__(self, n):
        self.w = np.linspace(-1, 1, n)
        self.calls = 0

    def activation(self, z):
        return np.maximum(z, 0.0)

    def score(self, x):
        self.calls += 1
        return self.activation(x * self.w).sum()


class Leaky(Model):
    def activation(self, z):
        return np.where(z > 0, z, 0.1 * z)


def step(model, x):
    return model.score(x) + model.score(x * 2.0)


m = Model(4)
leaky = Leaky(4)
x = np.array([0.5, -1.0, 2.0, -0.25])
for i in range(34):
    target = m
    if i == 21:
        m.activation = lambda z: z * 3.0   # noqa: E731  (instance attribute shadows the method)
    if i == 23:
        del m.activation
    if 24 <= i < 27:
        target = leaky
    if i == 28:
        Model.activation = lambda self, z: np.abs(z)   # noqa: E731
    call(f"step{i}", step, target, x)
snapshot("models", (m, leaky))
