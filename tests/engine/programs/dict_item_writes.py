# Dict item writes from a hot function: new keys, overwritten keys (order kept),
# deletion, and arrays stored by reference.
# expect: compiled accumulate
import numpy as np
from _probe import snapshot, call

grads = {}


def accumulate(name, g, step):
    if name in grads:
        grads[name] += g
    else:
        grads[name] = g.copy()
    grads["step"] = step
    grads[("norm", step % 3)] = float(np.sqrt((g * g).sum()))
    if step % 7 == 6:
        del grads[("norm", 0)]
    return len(grads)


for s in range(28):
    name = ["w1", "b1", "w2"][s % 3]
    call(f"acc{s}", accumulate, name, np.arange(3.0) * s, s)
snapshot("grads", grads)
