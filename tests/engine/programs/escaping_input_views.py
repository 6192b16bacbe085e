# Views of input arrays that escape: returned, stored in a global, put in a tuple,
# the same view under two names. CPython hands out NumPy views of the caller's
# array (base, strides, offset); writes through them later reach that array.
# expect: compiled window, views, keep_view
import numpy as np
from _probe import call, snapshot

S = np.arange(300, dtype=np.float64).reshape(5, 60)
kept = None


def window(streams, p, n):
    x = streams[:, p:p + n].T
    y = streams[:, p + 1:p + n + 1].transpose(1, 0)
    return x, y, x, float(x[0, 0] * 2.0 - y[1, 1])


def views(a):
    return a.T, a[1:3], a[:, 2], a[None], a[::2, 1:].T, a[0, 0] * 2.0


def keep_view(a):
    global kept
    kept = a[1:, :4].T
    return kept.shape


for i in range(30):
    p = (i * 7) % 50
    x, y, x2, s = call(f"window{i}", window, S, p, 6)
    snapshot(f"window_ids{i}", (x is x2, x.base is S.base, y.base is S.base))
    if i == 25:
        x[0, 0] = -1.0  # writes S through the returned view
    call(f"views{i}", views, S[:4, :8])
    call(f"keep{i}", keep_view, S)
    snapshot(f"kept{i}", (kept.base is S.base, kept.strides))
kept[0, 0] = 1234.5
snapshot("S_after", S)
