"""OPENBLAS_THREAD_TIMEOUT, which Specula sets (engine/python/specula/__init__.py,
the kernelspec), changes only how long OpenBLAS's idle workers spin: NumPy's
products keep their bytes under any timeout. The products are ones whose last
bits depend on OpenBLAS's thread count (gemv 100x100, float32 gemms, ddot from
32K elements), so the same check run with another thread count must differ:
the comparison can fail."""

import os
import subprocess
import sys

PRODUCTS = r"""
import hashlib, time
import numpy as np
r = np.random.default_rng(0)
A = r.standard_normal((100, 100)); h = r.standard_normal((100, 1))
X = r.standard_normal((64, 784)).astype(np.float32)
W = r.standard_normal((784, 256)).astype(np.float32)
S = r.standard_normal((256, 256)).astype(np.float32)
v = r.standard_normal(1 << 16)
def products():
    return [np.dot(A, h), A.T @ h, X @ W, S @ S, v @ v]
out = products() + products()
time.sleep(0.05)  # past a short timeout: the workers sleep, then are woken
out += products()
print(hashlib.sha256(b"".join(np.asarray(o).tobytes() for o in out)).hexdigest())
"""


def digest(**env):
    full = dict(os.environ)
    for k in ("OPENBLAS_THREAD_TIMEOUT", "OPENBLAS_NUM_THREADS"):
        full.pop(k, None)
    full.update(env)
    return subprocess.run([sys.executable, "-c", PRODUCTS], env=full, check=True,
                          capture_output=True, text=True).stdout.strip()


def main():
    default = digest()
    for timeout in ("4", "18", "30"):
        got = digest(OPENBLAS_THREAD_TIMEOUT=timeout)
        if got != default:
            print(f"timeout {timeout} changed NumPy's bytes: {got} != {default}")
            return 1
    if digest(OPENBLAS_NUM_THREADS="1") == default:
        print("one thread gave the same bytes: the check cannot tell (products too small?)")
        return 1
    print("same bytes under timeouts 4, 18, 30 and the default; one thread differs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
