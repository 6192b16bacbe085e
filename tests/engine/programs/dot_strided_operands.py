# np.dot, ndarray.dot and @ of strided, transposed, F-ordered and length-1
# operands, float64 and float32, their layouts changing between calls.
# np.dot is NumPy's cblas_matrixproduct: an operand BLAS can not read is
# copied in C order and then multiplied by gemm/gemv (x[:, ::2] . b.T), a
# (1,1) or (1,n) operand scales the other (-0.0 kept, 0 * inf skipped by
# axpy); np.matmul's loop never copies (its no-BLAS loop for x[:, ::2]).
# expect: compiled dot_cols, dot_method, matmul_cols, dot_vector, dot_scalar_row, dot_col_row
import numpy as np
from _probe import call


def dot_cols(x, b):
    return np.dot(x[:, ::2], b.T)


def dot_method(x, b):
    return x[:, 1::2].dot(b)


def matmul_cols(x, b):
    return x[:, ::2] @ b.T


def dot_vector(m, v):
    return np.dot(m[::2], v), np.dot(v[:6], m.T)


def dot_scalar_row(s, r):
    return np.dot(s, r), np.dot(r.T, s), np.dot(s, r[:, 2:3])


def dot_col_row(c, r):
    return np.dot(c, r), np.dot(c * 2.0, r[:, ::2])


rng = np.random.default_rng(7)


def layout(a, i):
    # C for the first 20 calls, then F and C in turn
    return np.asfortranarray(a) if i >= 20 and i % 2 else a


for i in range(30):
    dt = np.float32 if i % 3 == 2 else np.float64
    x = layout(rng.standard_normal((3, 8)).astype(dt), i)
    b = rng.standard_normal((3, 4)).astype(dt)
    call(f"cols{i}", dot_cols, x, b)
    call(f"matmul{i}", matmul_cols, x, b)
    call(f"method{i}", dot_method, x, layout(rng.standard_normal((4, 5)).astype(dt), i))
    m = layout(rng.standard_normal((12, 6)).astype(dt), i)
    call(f"vector{i}", dot_vector, m, rng.standard_normal(6).astype(dt))
    s = np.array([[(-0.0, 0.0, 1.5)[i % 3]]], dtype=dt)
    r = rng.standard_normal((1, 5)).astype(dt)
    if i >= 20:
        r[0, 1] = np.inf
    call(f"scalar{i}", dot_scalar_row, s, r)
    c = layout(rng.standard_normal((4, 1)).astype(dt), i)
    if i >= 20:
        c[0, 0] = -0.0
    call(f"colrow{i}", dot_col_row, c, layout(rng.standard_normal((1, 6)).astype(dt), i))
