# Python-scalar promotion (NumPy 1.x value-based casting): f32_array * 0.1 stays
# float32, int8_array + 300 becomes int16, uint8 + (-1) becomes int16, and a
# NumPy float64 scalar behaves differently from a Python float.
# expect: compiled scalars
import numpy as np
from _probe import call


def scalars(f32, i8, u8, k, f):
    return (f32 * 0.1, f32 * f, i8 + 300, i8 + k, u8 + (-1), u8 * 2,
            i8 * np.float64(0.5), f32 + np.float64(1e40), i8 // 3, f32 ** 2, i8 ** 2,
            u8 > -1, i8 == 300)


f32 = np.array([1.5, -2.25, 3e38], dtype=np.float32)
i8 = np.array([-128, 0, 127], dtype=np.int8)
u8 = np.array([0, 1, 255], dtype=np.uint8)
with np.errstate(all="ignore"):
    for i in range(24):
        k = [1, 100, 127, 128, -129, 2 ** 40][i % 6]
        f = [0.1, 1e39, -0.0, 3][i % 4]
        call(f"s{i}", scalars, f32, i8, u8, k, f)
