# Footgun: mutable default arguments — a default list appended to, a default array
# mutated in place, and __defaults__ replaced after compilation.
# expect: compiled accumulate
import numpy as np
from _probe import snapshot, call


def accumulate(x, seen=[], total=np.zeros(2)):
    seen.append(float(x.sum()))
    total += x
    return len(seen), total.copy()


for i in range(30):
    if i == 24:
        accumulate.__defaults__ = ([], np.ones(2))
    call(f"acc{i}", accumulate, np.array([1.0, i]))
snapshot("accumulate", accumulate)
