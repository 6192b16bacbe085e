# Footgun: integer overflow — Python ints must not wrap at 64 bits, NumPy int64
# must wrap exactly as NumPy does, and the switch between them must be kept.
# expect: compiled collatz_len, mix
import numpy as np
from _probe import call


def collatz_len(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def mix(a, p):
    return a * p, p * p * p, (a * 2 ** 40).sum(), int(a[0]) * p * p


for i in range(25):
    call(f"collatz{i}", collatz_len, 2 ** (60 + i) - 1)
    call(f"mix{i}", mix, np.array([2 ** 62, 3], dtype=np.int64), 2 ** (20 + i))
