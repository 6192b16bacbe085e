# Global rebinding from a hot function: counters, a best-so-far array and a
# global that is only sometimes assigned.
# expect: compiled track
import numpy as np
from _probe import snapshot, call

calls = 0
best = None
best_score = -np.inf


def track(x):
    global calls, best, best_score
    calls += 1
    score = float(x.sum())
    if score > best_score:
        best_score = score
        best = x
    return calls, best_score


for i in range(28):
    x = np.sin(np.arange(4.0) + i)
    call(f"track{i}", track, x)
snapshot("state", (calls, best, best_score))
