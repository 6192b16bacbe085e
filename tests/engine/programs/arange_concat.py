# arange with float steps, linspace, concatenate/stack/hstack/vstack on mixed dtypes.
# expect: compiled assemble
import numpy as np
from _probe import call


def assemble(n, step):
    a = np.arange(0, 1, step)
    b = np.arange(n)
    c = np.concatenate([a, b])
    d = np.stack([b, b * 2], axis=1)
    e = np.hstack([b, np.zeros(2, dtype=np.int32)])
    f = np.vstack([d, [[-1, -1]]])
    g = np.concatenate([d, d], axis=None)
    return a, c, d, e, f, g, np.arange(n, 0, -2), np.arange(3, dtype=np.uint8)


for i in range(25):
    call(f"as{i}", assemble, 3 + i % 4, [0.1, 0.25, 0.3, 1 / 3][i % 4])
