# Footgun: builtins rebound after compilation — a module-level `len`/`abs` shadowing
# the builtin, and builtins.print replaced.
# expect: compiled measure
import builtins
import numpy as np
from _probe import call

real_print = builtins.print


def measure(x):
    print("measure", len(x))
    return abs(x.sum()), max(len(x), 2), min(x.shape)


for i in range(30):
    if i == 20:
        len = lambda v: 99  # noqa: E731
    if i == 23:
        del len
        abs = lambda v: "shadowed abs"  # noqa: E731
    if i == 26:
        builtins.print = lambda *a, **k: real_print("patched:", *a, **k)
    if i == 28:
        builtins.print = real_print
    call(f"m{i}", measure, np.arange(-5.0, 1.0))
