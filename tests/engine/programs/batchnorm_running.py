# Batch norm with running statistics updated in place during training only.
# expect: compiled BatchNorm.__call__
import numpy as np
from _probe import snapshot, call


class BatchNorm:
    def __init__(self, n, momentum=0.1):
        self.running_mean = np.zeros(n)
        self.running_var = np.ones(n)
        self.momentum = momentum
        self.training = True
        self.batches = 0

    def __call__(self, x):
        if self.training:
            mean, var = x.mean(axis=0), x.var(axis=0)
            self.running_mean *= 1 - self.momentum
            self.running_mean += self.momentum * mean
            self.running_var = (1 - self.momentum) * self.running_var + self.momentum * var
            self.batches += 1
        else:
            mean, var = self.running_mean, self.running_var
        return (x - mean) / np.sqrt(var + 1e-5)


bn = BatchNorm(3)
for i in range(30):
    bn.training = i < 24
    call(f"bn{i}", bn, np.arange(12.0).reshape(4, 3) ** (1 + i % 3) / 10)
snapshot("bn", bn)
