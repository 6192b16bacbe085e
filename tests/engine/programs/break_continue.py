# for loops with break and continue decided by array data and by Python values.
# expect: compiled scan
import numpy as np
from _probe import call


def scan(rows, stop_at):
    total, seen = 0.0, []
    for k, r in enumerate(rows):
        if r.min() < 0:
            continue
        if k >= stop_at:
            break
        total += r.sum()
        seen.append(k)
    else:
        seen.append("no break")
    return total, seen


for i in range(26):
    rows = np.sin(np.arange(20.0) + i).reshape(5, 4)
    call(f"scan{i}", scan, rows, 2 + i % 5)
