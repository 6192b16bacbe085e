# Footgun: evaluation order of side effects inside one expression and one call.
# expect: compiled ordered
import numpy as np
from _probe import snapshot, call

trace = []


def note(tag, v):
    trace.append(tag)
    return v


def ordered(x):
    return note("a", x) * note("b", 2) + note("c", x)[note("d", 0)], \
        np.maximum(note("e", x), note("f", 1.0))


for i in range(25):
    call(f"o{i}", ordered, np.arange(3.0) + i)
snapshot("trace", trace[-12:])
snapshot("len", len(trace))
