# Footgun: Python side effects captured once at trace time instead of happening on
# every call (list appends, prints, counters, an iterator advanced).
# expect: compiled step
import itertools
import numpy as np
from _probe import snapshot, call

calls = []
ticker = itertools.count()


def step(x):
    calls.append(len(calls))
    print("step", len(calls), next(ticker))
    return x + len(calls)


for i in range(25):
    call(f"step{i}", step, np.zeros(2))
snapshot("calls", calls)
snapshot("next tick", next(ticker))
