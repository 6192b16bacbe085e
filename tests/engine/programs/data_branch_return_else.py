# Returns on either side of `if` on array data, nested under elif, with code after
# the if that runs only on the side that does not return (it is converted on both
# sides of the IR conditional). Branches flip from call to call.
# expect: compiled safe_normalise
import numpy as np
from _probe import snapshot, call


def safe_normalise(v, floor):
    n = np.sqrt((v * v).sum())
    if n > 100.0:
        v = v / 100.0
        n = n / 100.0
    elif n < floor:
        return np.zeros_like(v), n * 0.0
    u = v / n
    if u.max() > 0.9:
        return u * 0.9, n
    return u, n


for i in range(30):
    v = np.array([3.0, -4.0, 0.5]) * ((i % 6) * 40.0 + 1e-3) * (1 - 2 * (i % 2))
    v[0] += (i % 5 == 0) * 50.0
    call(f"safe_normalise{i}", safe_normalise, v, 0.01)
