# A Python int counter passed to hot functions changes on every call: after a
# guard miss it becomes an int64 input (one graph for every value), used in
# `%` and `//` with Python's sign rules, as an index (negative wrap,
# IndexError), in float arithmetic, and growing past 2**31 and 2**63, where
# it must fall back or re-specialise, never wrap.
# expect: compiled step, divide, pick
import numpy as np

from _probe import call, snapshot

table = np.arange(24.0).reshape(6, 4)
weights = np.linspace(-1.0, 1.0, 4)


def step(i, x):
    row = table[i % 6]
    sign = i // -3
    col = x[(i // 4) % 4 - 4]
    return row * col + float(i % -5) * 0.5, sign, abs(i - 7) % 3


def divide(i, d):
    # ZeroDivisionError when d == 0: the graph exits, CPython raises.
    return i // d, i % d, float(i) / 4.0


def pick(x, i):
    # IndexError past either end: CPython's own error, from CPython.
    return x[i] * 2.0


for i in range(-10, 40):
    call(f"step{i}", step, i, weights)
    call(f"divide{i}", divide, i * 7 - 100, i % 5 - 2)
    call(f"pick{i}", pick, weights, i % 9 - 4)

# Counters past the relaxed range, past 2**63 and past 2**64.
for i in (2**31 - 1, 2**31, 2**40 + 3, 2**62, 2**63 - 1, 2**63, 2**64 + 5, -(2**63) - 1):
    call(f"step_big{i}", step, i, weights)
    call(f"divide_big{i}", divide, i, 7)
    call(f"divide_neg{i}", divide, -i, -3)
snapshot("table", table)
