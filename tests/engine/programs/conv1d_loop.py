# A 1-d convolution written as a Python loop over taps with slicing, then ReLU.
# expect: compiled conv1d
import numpy as np
from _probe import call


def conv1d(x, k):
    n = x.shape[-1] - len(k) + 1
    out = np.zeros(x.shape[:-1] + (n,))
    for j in range(len(k)):
        out += k[j] * x[..., j:j + n]
    return np.maximum(out, 0)


for i in range(25):
    x = np.cos(np.arange(40.0) * 0.3 + i).reshape(2, 20)
    k = np.array([1.0, -2.0, 1.0]) if i < 20 else np.array([0.5, 0.5])
    call(f"conv{i}", conv1d, x, k)
