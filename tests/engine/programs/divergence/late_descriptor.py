# Footgun: a descriptor arriving late — after forward() compiled reading the plain
# instance attribute `self.w`, the class gains a property `w` (its getter counts its
# calls and, once, receives the user's interrupt), then a Python descriptor with
# __get__ only (the instance attribute shadows it until it is deleted). A graph that
# read `self.w` from the instance, or that ran the getter itself on top of CPython's
# call, would return the stale array, run the getter's side effects twice, or lose
# the interrupt.
# expect: compiled Model.forward
import signal

import numpy as np
from _probe import snapshot, call

getter_calls = []


class Model:
    def __init__(self):
        self.w = np.ones(3)

    def forward(self, x):
        return (x * self.w).sum()


def counting_getter(self):
    getter_calls.append(len(getter_calls))
    if len(getter_calls) == 2:
        # The user's Ctrl-C arrives while the getter runs.
        signal.raise_signal(signal.SIGINT)
    return np.full(3, float(len(getter_calls)))


class scaled:
    """A non-data descriptor written in Python: runs code when it wins the lookup."""

    def __get__(self, obj, owner=None):
        getter_calls.append("scaled")
        return np.arange(3.0)


m = Model()
for i in range(12):
    call(f"plain{i}", m.forward, np.ones(3))

Model.w = property(counting_getter)   # a data descriptor now wins over m.__dict__["w"]
for i in range(4):
    try:
        call(f"property{i}", m.forward, np.ones(3))
    except KeyboardInterrupt:
        call(f"interrupted{i}", lambda: "KeyboardInterrupt")
snapshot("calls after the property", list(getter_calls))

Model.w = scaled()                    # non-data: the instance attribute wins again
for i in range(3):
    call(f"shadowed{i}", m.forward, np.ones(3))
del m.__dict__["w"]                   # now the descriptor's __get__ runs
for i in range(3):
    call(f"descriptor{i}", m.forward, np.ones(3))
snapshot("calls after the descriptor", list(getter_calls))
snapshot("m", m)
