# float32 elementwise math near its limits: exp overflow to inf, tiny subnormals,
# and float32 results mixed with Python floats.
# expect: compiled f32_math
import numpy as np
from _probe import call


def f32_math(x):
    return np.exp(x), x * 1e-38, np.log(x * x), x / 3.0, (x + 0.1).dtype, np.sqrt(x)


with np.errstate(all="ignore"):
    for i in range(25):
        x = np.array([80.0, 88.7, 89.0, -104.0, 1e-30, -1.0], dtype=np.float32) * (1 + i / 50)
        call(f"f{i}", f32_math, x)
