# Python numbers bound differently by the two sides of an `if` on array data: an
# int literal on one side and an int expression on the other (a position reset),
# two floats, two bools, merged as graph values of their Python type (the results
# must come back as Python int, float and bool); the branch flips from call to
# call, and in a loop inside the function the reset happens in some trips only.
# expect: compiled advance, walk
import numpy as np
from _probe import snapshot, call


def advance(x, pos, step):
    if x.sum() > 0.0:
        pos, scale, wrapped = 0, 0.5, True
    else:
        pos, scale, wrapped = pos + step, 1.5, False
    return x * scale + pos * 0.25, pos, scale, wrapped


def walk(x, n):
    pos, total = 0, 0.0
    for i in range(n):
        if total > 2.0:
            total, pos = 0.0, 0
        total = total + float(x.sum()) * 0.1 + pos * 0.5
        pos = pos + 3
    return total, pos


x = np.array([0.5, -0.25, 1.0])
for i in range(30):
    sign = 1.0 if i % 3 else -1.0
    out, pos, scale, wrapped = call(f"advance{i}", advance, x * sign, i * 7, 3)
    snapshot(f"types{i}", [type(pos).__name__, type(scale).__name__, type(wrapped).__name__])
    call(f"walk{i}", walk, x * (i % 4 + 1), 5 + i % 7)
