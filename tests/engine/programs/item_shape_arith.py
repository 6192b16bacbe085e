# .item(), .shape, .size and len() used in Python arithmetic and as Python values.
# expect: compiled summarise
import numpy as np
from _probe import call


def summarise(x):
    n, m = x.shape
    total = x.sum().item()
    mean = total / (n * m)
    biggest = x.max().item() * len(x)
    ratio = x.size // max(m, 1)
    return n * m, mean, biggest, ratio, type(total).__name__, x[0, 0].item(), n + m + 0.5


for i in range(25):
    x = (np.arange(12 + (i % 3) * 4) % 5).reshape(-1, 4)
    call(f"s{i}", summarise, x)
    call(f"sf{i}", summarise, x.astype(np.float32) / 3)
