# Welford's online mean/variance on Python floats, fed from array elements.
# expect: compiled Welford.push
import numpy as np
from _probe import snapshot, call


class Welford:
    def __init__(self):
        self.n, self.mean, self.m2 = 0, 0.0, 0.0

    def push(self, values):
        for v in values:
            self.n += 1
            d = float(v) - self.mean
            self.mean += d / self.n
            self.m2 += d * (float(v) - self.mean)
        return self.m2 / (self.n - 1) if self.n > 1 else float("nan")


w = Welford()
for i in range(30):
    call(f"push{i}", w.push, np.sin(np.arange(5.0) * (i + 1)) * 1e8)
snapshot("w", w)
