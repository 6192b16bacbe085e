# Footgun: float contraction — a compiler fusing x*y+z into one FMA changes the bits.
# These operands make fma(x, y, z) differ from round(round(x*y) + z).
# expect: compiled mad
import numpy as np
from _probe import call


def mad(x, y, z):
    return x * y + z, z + x * y, x * y - z, (x * y) + (x * z)


x = np.array([1 + 2 ** -27, 0.1, 1e16 + 2, 2 / 3])
y = np.array([1 - 2 ** -27, 10.0, 1e16 - 2, 3.0])
z = np.array([-1.0, -1.0, -1e32, -2.0])
for i in range(25):
    call(f"mad{i}", mad, x, y, z * (1 + i % 2))
