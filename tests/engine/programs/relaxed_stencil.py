# A 5-point stencil on grids whose size changes (the dims become symbolic): the
# interior slices u[1:-1, 1:-1], u[2:, 1:-1], u[:-2, 1:-1]... of one grid must be
# known equal in size to broadcast together.
# expect: compiled heat_step
import numpy as np
from _probe import snapshot, call


def heat_step(u, u_new, alpha):
    u_new[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (
        u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])


for size in (12, 12, 17, 17, 23, 9, 3, 2):
    u = np.zeros((size, size))
    u[0, :] = 1.0
    u[size // 3: size // 2 + 1, size // 3: size // 2 + 1] = 0.5
    u_new = u.copy()
    for step in range(6):
        call(f"heat{size}_{step}", heat_step, u, u_new, 0.2)
        u, u_new = u_new, u
    snapshot(f"u{size}", u)
