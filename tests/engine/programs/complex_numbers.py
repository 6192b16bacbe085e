# complex128 arrays: arithmetic, abs, conj, angle, exp and matmul.
# expect: compiled cplx
import numpy as np
from _probe import call


def cplx(z, w):
    return z * w, np.abs(z), np.conj(z), np.angle(z), np.exp(z), z @ w, (z * 1j).real


for i in range(25):
    z = (np.arange(4.0) + 1j * (np.arange(4.0) - i)) / 3
    call(f"c{i}", cplx, z, np.conj(z)[::-1])
