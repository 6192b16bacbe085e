# A class statement inside the hot function (a new class each call): not convertible.
# must-not-convert: make_holder
import numpy as np
from _probe import snapshot, call


def make_holder(x):
    class Holder:
        data = x * 2

        def total(self):
            return self.data.sum()

    return Holder().total(), Holder.__qualname__


for i in range(25):
    call(f"mh{i}", make_holder, np.arange(3.0) + i)
