# staticmethod and classmethod hot functions, with class state read through cls.
# expect: compiled Ops.affine, Ops.scaled
import numpy as np
from _probe import snapshot, call


class Ops:
    factor = 2.0

    @staticmethod
    def affine(x, a, b):
        return a * x + b

    @classmethod
    def scaled(cls, x):
        return cls.affine(x, cls.factor, 1.0)


for i in range(26):
    if i == 21:
        Ops.factor = -1
    call(f"a{i}", Ops.affine, np.arange(3.0), i, 0.5)
    call(f"s{i}", Ops.scaled, np.arange(3.0))
snapshot("Ops", Ops)
