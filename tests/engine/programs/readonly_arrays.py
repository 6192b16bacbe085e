# Writing into a read-only array raises ValueError after earlier writes happened;
# the array becomes read-only only after compilation.
# expect: compiled bump
import numpy as np
from _probe import snapshot, call

counter = np.zeros(1)


def bump(x, y):
    counter[0] += 1
    x += 1
    y += x
    return x.sum() + y.sum()


x = np.zeros(3)
y = np.zeros(3)
for i in range(28):
    if i == 22:
        y.flags.writeable = False
    if i == 25:
        x.setflags(write=False)
    call(f"bump{i}", bump, x, y)
snapshot("xyc", (x, y, counter))
