# A hot function appending to a list it was given, to a global list, and
# extending a list of arrays (which are later mutated).
# expect: compiled record
import numpy as np
from _probe import snapshot, call

history = []


def record(losses, x, i):
    loss = float((x ** 2).sum())
    losses.append(loss)
    history.append((i, x.copy()))
    losses.extend([loss / 2, i])
    return len(losses)


losses = []
x = np.ones(3)
for i in range(25):
    x = x * 0.9
    call(f"record{i}", record, losses, x, i)
snapshot("losses", losses)
snapshot("history", history)
