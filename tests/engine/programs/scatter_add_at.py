# np.add.at, NumPy's unbuffered scatter-add, as an embedding gradient: repeated
# indices accumulate in index order (float32 sums depend on it), negative indices
# wrap, a global array is updated in place, and an index out of range after
# compilation raises NumPy's IndexError (the call runs in CPython).
# expect: compiled embed_grad, accumulate
import numpy as np
from _probe import snapshot, call

V, H = 11, 5
dE_total = np.zeros((V, H), np.float32)


def embed_grad(E, tokens, dx):
    dE = np.zeros_like(E)
    np.add.at(dE, tokens, dx)
    return dE * 0.5, dE.sum(axis=1)


def accumulate(tokens, dx):
    np.add.at(dE_total, tokens, dx * 3.0)
    return dE_total[2].copy()


rng = np.random.default_rng(12)
E = rng.standard_normal((V, H)).astype(np.float32)
for i in range(26):
    # Few distinct tokens: most rows get several adds, in index order.
    tokens = rng.integers(-V, 4, size=(6, 4))
    dx = (rng.standard_normal((6, 4, H)) * 10.0 ** rng.integers(-3, 4, size=(6, 4, 1))).astype(np.float32)
    call(f"grad{i}", embed_grad, E, tokens, dx)
    call(f"acc{i}", accumulate, tokens, dx)
    call(f"grad64_{i}", embed_grad, E.astype(np.float64), tokens, dx.astype(np.float64))
bad = np.full((6, 4), 2)
bad[3, 1] = V  # out of range: CPython raises IndexError, nothing committed
call("out_of_range", embed_grad, E, bad, dx)
call("out_of_range_global", accumulate, bad, dx)
snapshot("dE_total", dE_total)
