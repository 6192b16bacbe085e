# The BLAS paths NumPy picks: gemm, gemv, vector dot, A @ A.T (syrk), batched
# matmul, np.dot with a scalar and integer matmul (no BLAS).
# expect: compiled products
import numpy as np
from _probe import call


def products(A, v, B3):
    return (A @ A.T, A.T @ A, A @ v, v @ A.T @ A, np.dot(v, v), np.dot(A, 2.5),
            B3 @ B3.transpose(0, 2, 1), A.astype(np.int64) @ A.T.astype(np.int64),
            np.matmul(A[:, :2], A[:2, :]), np.inner(v, v), np.vdot(A, A))


for i in range(24):
    A = np.sin(np.arange(15.0) * (i + 1)).reshape(5, 3) * 3
    call(f"p{i}", products, A, np.cos(np.arange(3.0) + i), A.reshape(1, 5, 3).repeat(2, 0))
    call(f"p32_{i}", products, A.astype(np.float32), np.ones(3, np.float32),
         np.ones((2, 2, 2), np.float32))
