# NumPy scalar types mixed with Python numbers: result types and values.
# expect: compiled scalar_mix
import numpy as np
from _probe import call


def scalar_mix(a, b, p):
    return a + p, a * b, b / a, a ** 2, a > p, type(a + b).__name__, -b, abs(a - b), \
        a + True, b // 3, float(a) + p


vals = [(np.float32(1.5), np.int64(3)), (np.float64(2.5), np.int8(100)),
        (np.float16(0.1), np.uint8(200)), (np.float32(3e38), np.int32(-7))]
with np.errstate(all="ignore"):
    for i in range(24):
        a, b = vals[i % 4]
        call(f"s{i}", scalar_mix, a, b, [0.1, 3, 2 ** 40][i % 3])
