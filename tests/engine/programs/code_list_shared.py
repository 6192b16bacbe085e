# One list a hot function builds reaching Python in several places (both
# items of the returned tuple, a global, a list argument): one object, as in
# CPython, so `a is b` holds and a mutation through one name shows through
# the others.
# expect: compiled shared_rows, keep
import numpy as np
from _probe import snapshot, call

KEPT = None


def shared_rows(x):
    row = [x * 2.0]
    row.append(x + 1.0)
    return row, row


def keep(x, store):
    global KEPT
    acc = [x, x * 0.5]
    store.append(acc)
    KEPT = acc
    acc.append(x * 3.0)
    return acc


store = []
for i in range(25):
    x = np.arange(3.0) + i
    a, b = call(f"sr{i}", shared_rows, x)
    a.append(i)
    snapshot(f"sr_alias{i}", (a, b, a is b))
    got = call(f"keep{i}", keep, x, store)
    snapshot(f"keep_alias{i}", (got, KEPT, store[-1], got is KEPT, got is store[-1], got[0] is x))
    got.append(-1)
snapshot("store", store)
