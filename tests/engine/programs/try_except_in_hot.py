# try/except/finally inside the hot function, with the except path taken sometimes.
# expect: compiled safe_div
import numpy as np
from _probe import snapshot, call

events = []


def safe_div(a, b):
    try:
        r = a @ np.linalg.inv(b)
    except np.linalg.LinAlgError as e:
        events.append(str(e))
        r = np.zeros_like(a)
    finally:
        events.append("done")
    return r


a = np.arange(4.0).reshape(2, 2)
for i in range(25):
    b = np.array([[1.0, 2.0], [2.0, 4.0 + (i % 6 != 0)]])
    call(f"sd{i}", safe_div, a, b)
snapshot("events", events)
