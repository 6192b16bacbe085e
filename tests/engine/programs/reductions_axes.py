# Reductions with tuple axes, negative axes, keepdims, dtype= and integer inputs.
# expect: compiled reduce
import numpy as np
from _probe import call


def reduce(x):
    return (x.sum(), x.sum(axis=(0, 2)), x.mean(axis=-1), x.max(axis=1, keepdims=True),
            np.sum(x, axis=0, dtype=np.float32), x.min(axis=(1,)), x.prod(axis=-1),
            np.mean(x, axis=(0, 1), keepdims=True), x.argmax(), x.argmin(axis=2))


for i in range(25):
    x = (np.arange(60) % (7 + i)).reshape(3, 4, 5)
    call(f"int{i}", reduce, x)
    call(f"f{i}", reduce, np.sqrt(x + 0.5) * 1e3)
