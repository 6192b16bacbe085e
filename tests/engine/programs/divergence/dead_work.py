# Footgun: work whose result is unused. An optimiser that drops dead nodes also
# drops what they make observable in NumPy: a float op's IEEE flags (the
# RuntimeWarning, or FloatingPointError under np.seterr(all="raise")), an
# integer division by zero's warning, an index out of range. The traps come
# after compilation: the values that signal arrive late.
# expect: compiled dead_log, dead_branch, dead_intdiv, dead_index
import warnings

import numpy as np
from _probe import call


def dead_log(x):
    unused = np.log(x)            # warns on a zero, raises under seterr
    scale = np.exp(x)             # overflows on a large x
    return x * 2.0


def dead_branch(x, flag):
    if flag:
        unused = np.sqrt(x - 1.0)  # invalid on x < 1
    return x + 1.0


def dead_intdiv(k, d):
    unused = k // d               # int64 array by zero: RuntimeWarning
    return k + 1


def dead_index(x, i):
    x[i]                          # IndexError out of range
    return x.sum()


warnings.simplefilter("always")
good = np.array([1.5, 2.0, 3.0])
bad = np.array([0.0, 2.0, 800.0])
ints = np.arange(4)
for i in range(24):
    late = i >= 16
    call(f"log{i}", dead_log, bad if late else good)
    call(f"branch{i}", dead_branch, np.array([0.5]) if late else good, True)
    call(f"intdiv{i}", dead_intdiv, ints, np.zeros(4, dtype=np.int64) if late else ints + 1)
    call(f"index{i}", dead_index, good, 5 if late else 1)
    if i == 20:
        np.seterr(all="raise")
