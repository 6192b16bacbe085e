# A `while` on array data that never ends (the data never meets the test) runs
# as one graph: an IR LOOP with a condition. SIGINT must still interrupt it, as it
# interrupts CPython's loop: KeyboardInterrupt, and nothing the call would have
# changed is changed (the argument array updated in place in the loop keeps its
# contents, the caller's names keep their objects). The function first gets hot
# on data for which the loop ends after a varying number of trips.
# expect: compiled settle
import numpy as np
from _probe import snapshot
from _interrupts import interrupter, rounds, warmup

WARMUP = warmup()
ROUNDS = rounds(300) // 30


def settle(x, acc, rate, tol):
    trips = 0
    while np.abs(x).max() > tol:
        x = x * rate
        acc += x
        trips += 1
    return x, trips


acc = np.zeros(64)
for k in range(WARMUP):
    settle((np.arange(64) - 31.5), acc, 0.5 + 0.004 * k, 1e-3)
acc[...] = 0.0
acc_before = acc.copy()

sigint = interrupter()
for r in range(ROUNDS):
    x = (np.arange(64) - 31.5)
    x_obj = x
    # rate 1.0: x never shrinks, the loop never ends; returning is a lost interrupt.
    sigint.attempt(0.02 + 0.01 * (r % 5), settle, x, acc, 1.0, 1e-3, returning=False)
    # CPython's loop added x to acc some times before the interrupt; the graph
    # commits nothing. Both are states CPython can leave: acc a whole number of
    # x's past its value before the round (exact: halves of small ints), x
    # itself unchanged.
    added = (acc - acc_before) / (np.arange(64) - 31.5)
    finite = np.isfinite(added)
    whole = bool(np.all(added[finite] == np.round(added[finite])) and
                 np.all(added[finite] == added[finite][0]))
    if not whole or x is not x_obj or not np.array_equal(x, (np.arange(64) - 31.5)):
        sigint.violation(round=r, whole=whole)
    acc_before = acc.copy()

snapshot("summary", sigint.summary(ROUNDS))
