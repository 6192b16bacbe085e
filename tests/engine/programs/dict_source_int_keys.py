# Dicts keyed by time steps that the caller builds (min-char-rnn's hs/ps
# dicts handed to a helper): `for t in hs`, `.items()` and `.values()` over
# int keys, the key set growing by one step between calls (a dict_keys guard
# miss: recompiled for the new keys), a key deleted, and keys reinserted in
# another order. A dict whose keys are not all str/int stays in CPython for
# that call.
# expect: compiled total, last_state, stack_steps
import numpy as np
from _probe import snapshot, call


def total(hs):
    s = np.zeros(3)
    for t in hs:
        s = s + hs[t] * (t + 1)
    return s


def last_state(hs):
    last = None
    for t, h in hs.items():
        if t >= 0:
            last = h
    return last * 2.0


def stack_steps(ps):
    return np.stack([p for p in ps.values()])


for i in range(30):
    n = 3 if i < 22 else 4
    hs = {t: np.full(3, float(t + i)) for t in range(-1, n)}
    if i == 25:
        del hs[1]
    if i >= 27:
        hs = dict(reversed(list(hs.items())))
    call(f"total{i}", total, hs)
    call(f"last{i}", last_state, hs)
    call(f"stack{i}", stack_steps, hs)
odd = {0: np.ones(3), 1.5: np.zeros(3)}
call("total_float_key", total, {0: np.ones(3), 2.5: np.zeros(3)})
call("total_after", total, {0: np.ones(3), 2: np.zeros(3)})
call("stack_float_key", stack_steps, odd)
snapshot("done", True)
