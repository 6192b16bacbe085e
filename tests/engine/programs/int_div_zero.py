# Integer division and modulo by zero (NumPy: 0 and a RuntimeWarning; Python: an
# exception) and with negative operands (floor semantics, sign of the divisor).
# expect: compiled divide, pydivide
import numpy as np
from _probe import call


def divide(a, b):
    return a // b, a % b, np.fmod(a, b), np.divmod(a, b), a / b


def pydivide(p, q):
    return p // q, p % q, divmod(p, q), -p // q


a = np.array([7, -7, 7, -7, 0, np.iinfo(np.int64).min], dtype=np.int64)
b = np.array([2, 2, -2, -2, 0, -1], dtype=np.int64)
for i in range(24):
    call(f"div{i}", divide, a + i, b)
    call(f"pydiv{i}", pydivide, 7 - i, (i % 5) - 2)   # q == 0 every fifth call
    call(f"small{i}", divide, a.astype(np.int8), b.astype(np.int8))
