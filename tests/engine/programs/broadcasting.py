# Broadcasting edge cases: size-1 dims, prepended dims, (n,1)x(1,m), 0-length
# dims, and a mismatch that raises on the last calls.
# expect: compiled combine
import numpy as np
from _probe import call


def combine(a, b):
    s = a + b
    p = a * b
    return s, p, s.shape, np.broadcast_shapes(a.shape, b.shape)


shapes = [((3, 1), (1, 4)), ((4,), (2, 3, 4)), ((1,), (5,)), ((0, 1), (1, 3)),
          ((2, 1, 3), (4, 1)), ((), (3,))]
for i in range(30):
    sa, sb = shapes[i % len(shapes)] if i < 26 else ((3,), (4,))
    a = np.arange(int(np.prod(sa)), dtype=np.float64).reshape(sa) + i
    b = np.arange(int(np.prod(sb)), dtype=np.float64).reshape(sb) - i
    call(f"combine{i}", combine, a, b)
