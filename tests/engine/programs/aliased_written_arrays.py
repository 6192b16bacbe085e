# A function that writes one argument in place, called with separate arrays,
# with the same array twice and with overlapping views of one base, in turns.
# NumPy reads the written array's new contents through the overlapping one;
# calls that alias stay in CPython, the others run as graphs.
# expect: compiled heat_step
import numpy as np
from _probe import call, snapshot


def heat_step(u, u_new):
    u_new[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.1 * (
        u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1])
    return u_new


rng = np.random.default_rng(7)
a = rng.random((16, 16))
b = a.copy()
same = rng.random((16, 16))
base = rng.random((19, 16))
for i in range(12):
    call(f"separate{i}", heat_step, a, b)
    a, b = b, a
for i in range(12):
    call(f"same{i}", heat_step, same, same)
for i in range(12):
    call(f"views{i}", heat_step, base[:16], base[3:])
for i in range(12):
    call(f"mixed_separate{i}", heat_step, a, b)
    call(f"mixed_same{i}", heat_step, same, same)
    a, b = b, a
snapshot("final", (a, b, same, base))
