# Gradients summed over unrolled time steps as chains of rank-1 updates
# (`dW += dh @ h.T`): the CPU backend runs each chain as one kernel. Signed
# zeros (0 + (-0.0)), NaN and subnormals in the operands (no inf: inf * 0
# makes a NaN of the other sign, and which of two different NaNs NumPy's add
# passes on depends on where the element falls in its loop); the sum on
# either side of the add; strided columns and rows (slices of matrices, rows
# of a transposed matrix); float32; in-place updates of a caller's array; a
# partial sum read in the middle (the chain splits there).
# expect: compiled grads, grads_f32, update_in_place, partial_read, sides
import numpy as np
from _probe import call

rng = np.random.RandomState(7)
H, V, T = 9, 6, 5


def grads(hs, xs, dhs):
    dWxh = np.zeros((H, V))
    dWhh = np.zeros((H, H))
    for t in range(T):
        dWxh += np.dot(dhs[t], xs[t].T)
        dWhh += np.dot(dhs[t], hs[t].T)
    return dWxh, dWhh


def grads_f32(hs, dhs):
    acc = np.zeros((H, H), dtype=np.float32)
    for t in range(T):
        acc += np.dot(dhs[t], hs[t].T)
    return acc


def update_in_place(W, cols, M):
    # Columns sliced out of a matrix, rows from the rows of a transposed one.
    for t in range(T):
        W += np.dot(cols[:, t:t + 1], M.T[t:t + 1, :])
    return W.sum()


def partial_read(hs, dhs):
    acc = np.ones((H, H))
    mid = None
    for t in range(T):
        acc = acc + np.dot(dhs[t], hs[t].T)
        if t == 2:
            mid = acc * 2.0
    return acc, mid


def sides(hs, dhs, start):
    acc = start.copy()
    for t in range(T):
        if t % 2 == 0:
            acc = np.dot(dhs[t], hs[t].T) + acc
        else:
            acc = acc + np.dot(dhs[t], hs[t].T)
    return acc


def columns(n, dtype=np.float64):
    return [rng.randn(n, 1).astype(dtype) for _ in range(T)]


def with_specials(vs, k):
    # -0.0 makes the product -0.0 (and 0 + -0.0 = +0.0), and a subnormal
    # times a small number underflows.
    vs = [v.copy() for v in vs]
    vs[k % T][0, 0] = -0.0
    vs[(k + 1) % T][1, 0] = 5e-324
    vs[(k + 2) % T][2, 0] = np.nan if k % 4 == 1 else -0.0
    return vs


with np.errstate(all="ignore"):
    for i in range(24):
        hs, xs, dhs = columns(H), columns(V), columns(H)
        if i >= 20:
            hs, dhs = with_specials(hs, i), with_specials(dhs, i + 1)
            dhs[0][:] = -0.0
        call(f"grads{i}", grads, hs, xs, dhs)
        call(f"grads_f32_{i}", grads_f32, columns(H, np.float32), columns(H, np.float32))
        W = rng.randn(H, H)
        if i >= 20:
            W[0, :] = -0.0
        call(f"update{i}", update_in_place, W, rng.randn(H, T), rng.randn(H, T))
        call(f"partial{i}", partial_read, hs, dhs)
        call(f"sides{i}", sides, hs, dhs, -np.zeros((H, H)) if i % 2 else rng.randn(H, H))
