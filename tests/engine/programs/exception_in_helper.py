# An exception raised two calls deep inside helpers of the hot function, after an
# effect; the traceback frames (file, line, function) must be CPython's.
# expect: compiled outer
import numpy as np
from _probe import snapshot, call

audit = []


def check(v):
    if not np.all(np.isfinite(v)):
        raise FloatingPointError(f"non-finite values at {np.flatnonzero(~np.isfinite(v))}")
    return v


def inner(v):
    audit.append(len(audit))
    return check(np.log(v))


def outer(v):
    return inner(v).sum()


with np.errstate(divide="ignore", invalid="ignore"):
    for i in range(26):
        call(f"outer{i}", outer, np.array([1.0, 2.0, 3.0]) - (i % 8 == 7) * 2)
snapshot("audit", audit)
