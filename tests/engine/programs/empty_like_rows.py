# np.empty_like filled one row per unrolled step before it is read (an LSTM's
# dx[t] = da @ Wx.T in reverse time order), and a gather x = E[idx] through a
# transposed index array: NumPy lays the result out in C order whatever the
# index's order, so its rows go to matmul as they are.
# expect: compiled backward, embed_matmul
import numpy as np
from _probe import snapshot, call


def backward(da_all, W):
    dx = np.empty_like(da_all[:, :, :3])
    for t in reversed(range(da_all.shape[0])):
        dx[t] = da_all[t] @ W.T
    return dx * 2.0


def embed_matmul(E, stream, W):
    x = E[stream.T]
    total = np.zeros((x.shape[1], W.shape[1]))
    for t in range(x.shape[0]):
        total = total + x[t] @ W
    return total, x


rng = np.random.default_rng(5)
W = rng.standard_normal((3, 6))
E = rng.standard_normal((9, 6))
for i in range(24):
    call(f"back{i}", backward, rng.standard_normal((4, 2, 6)), W)
    stream = rng.integers(0, 9, size=(3, 10))
    call(f"embed{i}", embed_matmul, E, stream[:, i % 5:i % 5 + 4], W.T.copy())
