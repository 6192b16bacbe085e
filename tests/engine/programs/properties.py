# A @property read in the hot function; its value depends on state changed between calls.
# expect: compiled Scaler.apply
import numpy as np
from _probe import snapshot, call


class Scaler:
    def __init__(self):
        self._log_scale = 0.0
        self.reads = 0

    @property
    def scale(self):
        self.reads += 1
        return np.exp(self._log_scale)

    def apply(self, x):
        return x * self.scale + self.scale


s = Scaler()
for i in range(25):
    if i > 20:
        s._log_scale = i / 10
    call(f"apply{i}", s.apply, np.arange(3.0))
snapshot("s", s)
