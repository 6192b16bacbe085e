# %% [markdown]
# # W5: 2-D heat equation, explicit 5-point stencil
# A 1024×1024 float64 grid with a fixed (Dirichlet) boundary, updated with NumPy slicing
# into a second buffer, the two buffers swapped every step.

# %% setup
import os
import sys

import numpy as np

QUICK = os.environ.get("SPECULA_BENCH_QUICK") == "1" or "--quick" in sys.argv[1:]

n = 1024
alpha = 0.2  # diffusion number; explicit scheme is stable for alpha <= 0.25
steps = 5 if QUICK else 50


def initial_grid(n):
    u = np.zeros((n, n))
    u[0, :] = 1.0  # a hot top edge
    u[n // 4:n // 2, n // 4:n // 2] = 0.5  # and a warm square inside
    return u


def heat_step(u, u_new, alpha):
    u_new[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (
        u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])


u = initial_grid(n)
u_new = u.copy()

# %% check
# The sliced update must equal a plain loop over the grid (same operation order, so
# exactly), and the maximum principle must hold.
def heat_step_loops(u, u_new, alpha):
    rows, cols = u.shape
    for i in range(1, rows - 1):
        for j in range(1, cols - 1):
            u_new[i, j] = u[i, j] + alpha * (
                u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1] - 4 * u[i, j])


small = initial_grid(24)
a, a_new = small.copy(), small.copy()
b, b_new = small.copy(), small.copy()
for _ in range(4):
    heat_step(a, a_new, alpha)
    a, a_new = a_new, a
    heat_step_loops(b, b_new, alpha)
    b, b_new = b_new, b
assert np.array_equal(a, b), f"stencil differs from the loop reference by {np.abs(a - b).max()}"
assert 0.0 <= a.min() and a.max() <= 1.0

# %% timed
for _ in range(steps):
    heat_step(u, u_new, alpha)
    u, u_new = u_new, u
