# Unsigned arithmetic: uint8 wraps, uint64 with int64 promotes to float64,
# subtraction below zero, and comparisons against negative Python ints.
# expect: compiled unsigned
import numpy as np
from _probe import call


def unsigned(u8, u64, i64):
    return (u8 - 10, u8 * u8, u64 + i64, u64 - np.uint64(1), u8 < -1, u8 // 0,
            u64 >> np.uint64(3), u8.astype(np.int8), np.left_shift(u8, 4))


with np.errstate(all="ignore"):
    for i in range(24):
        u8 = np.array([0, 5, 128, 255], dtype=np.uint8) + np.uint8(i)
        u64 = np.array([0, 2 ** 63, 2 ** 64 - 1, 17], dtype=np.uint64)
        call(f"u{i}", unsigned, u8, u64, np.arange(4, dtype=np.int64) * (i - 5))
