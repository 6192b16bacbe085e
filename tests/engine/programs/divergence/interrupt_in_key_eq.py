# Footgun: user code inside the engine's own lookups — after the functions compiled,
# the dicts they read are replaced by ones that hold a user key whose hash equals the
# int key the compiled function reads (`table[3]`), so every lookup of 3 runs the
# key's __eq__: CPython's lookup in the function, and the engine's when its guards
# read the item before a graph run (a conversion refuses such a dict). The
# user's Ctrl-C arrives while that __eq__ runs (one SIGINT, handled once). An engine
# that cleared the error of its own lookup would lose the interrupt: the function
# would return normally where CPython raised KeyboardInterrupt. The lookup is the
# function's first effect, so the interrupt leaves the same state wherever it lands.
# Armed calls also change x's shape (a guard miss and a new conversion) or not (a
# compiled graph's guards).
# expect: compiled scaled, totals
import signal

import numpy as np
from _probe import snapshot, call

armed = []


class Key:
    """Hashes like the int 3; equal only to itself."""

    def __hash__(self):
        return 3

    def __eq__(self, other):
        if armed:
            armed.clear()
            signal.raise_signal(signal.SIGINT)  # KeyboardInterrupt, raised right here
        return self is other


table = {3: np.arange(4.0)}
steps = {3: 0.5}


def scaled(x):
    w = table[3]
    return (x * w).sum(axis=-1)


def totals(xs):
    # `steps[3]` inside a loop: a dict item the loop's graph reads.
    acc = np.zeros(4)
    for t in range(3):
        acc = acc + xs[t] * steps[3]
    return acc


x = np.linspace(0.0, 1.0, 4)
xs = np.ones((3, 4))
for i in range(24):
    call(f"plain{i}", scaled, x)
    call(f"totals{i}", totals, xs)

table = {Key(): "the user's key", 3: np.arange(4.0)}
steps = {Key(): "the user's key", 3: 0.5}
interrupted = []
shapes = [(4,), (4,), (2, 4), (2, 4), (3, 4), (4,), (5, 4), (4,)]
for i, shape in enumerate(shapes):
    arg = np.full(shape, 0.25 * (i + 1))
    for name, fn, a in (("scaled", scaled, arg), ("totals", totals, xs * (i + 1))):
        armed.append(True)
        try:
            call(f"armed_{name}{i}", fn, a)
        except KeyboardInterrupt:
            interrupted.append(f"{name}{i}")
        armed.clear()
        call(f"after_{name}{i}", fn, a)
snapshot("interrupted", interrupted)
