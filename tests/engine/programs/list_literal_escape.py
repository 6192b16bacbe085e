# Lists built by the hot function (literals, comprehensions) that escape: returned,
# printed, stored. Python hands out a new list object; a tuple in its place would
# print and compare differently. Lists used only as arguments (np.stack) stay fine.
# expect: compiled stacked
import numpy as np
from _probe import snapshot, call

store = {}


def pair(x):
    return [x + 1.0, x * 2.0]


def show(x):
    print([x.sum(), 2], [v for v in (1, 2)])


def keep(x):
    store["last"] = [x.max()]


def stacked(x):
    return np.stack([x * k for k in range(3)]).sum(axis=0)


for i in range(24):
    call(f"pair{i}", pair, np.arange(3.0) + i)
    call(f"show{i}", show, np.arange(3.0) + i)
    call(f"keep{i}", keep, np.arange(3.0) + i)
    call(f"stacked{i}", stacked, np.arange(3.0) + i)
snapshot("store", store)
