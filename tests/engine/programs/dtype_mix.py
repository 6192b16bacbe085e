# Mixed float32/float64/int/bool arrays in one expression: the result dtype comes
# from NumPy's promotion rules, per operand.
# expect: compiled mix
import numpy as np
from _probe import call


def mix(f32, f64, i32, u8, b):
    r1 = f32 + i32          # float64 (int32 forces it)
    r2 = f32 * u8           # float32
    r3 = b + b              # bool (logical or)
    r4 = b * i32            # int32
    r5 = u8 - b             # uint8, wraps
    r6 = f64 / i32          # float64, inf/nan on zero
    r7 = (i32 > f32) & b
    r8 = u8 + i32.astype(np.int8)  # int16
    return r1, r2, r3, r4, r5, r6, r7, r8


with np.errstate(all="ignore"):
    for i in range(25):
        f32 = (np.arange(6, dtype=np.float32) - 2.5) * np.float32(1.1 + i)
        f64 = np.linspace(-1, 1, 6) * i
        i32 = (np.arange(6, dtype=np.int32) - 3) * (i % 4)
        u8 = (np.arange(6, dtype=np.uint8) * 50 + i).astype(np.uint8)
        b = np.array([True, False, True, True, False, i % 2 == 0])
        call(f"mix{i}", mix, f32, f64, i32, u8, b)
