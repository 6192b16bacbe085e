# Slice assignments into a user's array (the heat stencil's
# `u_new[1:-1, 1:-1] = ...`): the graph computes only the slice and the commit
# assigns it to the user's array once (engine/sunk_slices.hpp). Covers an
# overlapping source (NumPy copies it first), the destination aliased by
# another argument or a view of the same base, a strided destination, an
# assert failing after the store (nothing written before CPython reruns the
# call), later reads of the stored array in the same function, a print after
# the store, and index forms (an int, steps, negative bounds, float32).
# expect: compiled heat_step, heat_into, shift_rows, checked_step, step_then_sum, step_then_print, rows_and_steps
import numpy as np
from _probe import snapshot, call


def heat_step(u, u_new, alpha):
    u_new[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (
        u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])


def heat_into(u, dst, alpha):
    dst[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (
        u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])


def shift_rows(m):
    # The source overlaps the destination: NumPy reads the old rows.
    m[1:, 1:-1] = m[:-1, 2:] * 0.5
    m[:-1] = m[1:]


def checked_step(u, u_new, limit):
    u_new[1:-1, 1:-1] = 0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2])
    assert np.abs(u).max() < limit, "grid blew up"


def step_then_sum(u, u_new):
    # Read after the store: the updated array is read in the same graph.
    u_new[1:-1, 1:-1] = u[1:-1, 1:-1] * 0.5
    return u_new.sum() + u_new[0, 1:-1].sum()


def step_then_print(u, u_new):
    u_new[1:-1, 1:-1] = u[1:-1, 1:-1] - 1.0
    print("corner", u_new[1, 1], u_new[0, 0])


def rows_and_steps(a, d, b, c):
    a[3] = b[2] * 2.0
    d[-4:-1, ::2] = b[:3, 1::2] + 1.0
    c[1::2] = c[:-1:2] * np.float32(1.5)


rng = np.random.default_rng(11)
n = 24
u = rng.random((n, n))
u_new = u.copy()
for i in range(30):
    call(f"heat{i}", heat_step, u, u_new, 0.2)
    u, u_new = u_new, u
snapshot("u", u)
snapshot("u_new", u_new)

# Aliasing: the same grid as both arguments, and two views of one base.
grid = rng.random((12, 12))
call("same", heat_step, grid, grid, 0.1)
snapshot("grid", grid)
base = rng.random((12, 24))
for i in range(4):
    call(f"views{i}", heat_step, base[:, :12], base[:, 12:], 0.1)
    call(f"views_overlap{i}", heat_step, base[:, :12], base[:, 6:18], 0.1)
snapshot("base", base)
# A strided destination (a view with steps), then a Fortran-ordered one.
wide = np.zeros((n * 2, n * 2))
for i in range(24):
    call(f"strided{i}", heat_into, u, wide[::2, ::2], 0.2)
    u = u * 0.75
snapshot("wide", wide)
for i in range(24):
    f = np.asfortranarray(u_new)
    call(f"fortran{i}", heat_into, u, f, 0.2)
    snapshot(f"f{i}", f)
    u = u + 0.5

for i in range(25):
    m = np.arange(48.0).reshape(6, 8) * (i + 1)
    call(f"shift{i}", shift_rows, m)
    snapshot(f"m{i}", m)

g = rng.random((16, 16))
g_new = np.zeros_like(g)
for i in range(30):
    if i == 24:
        g[5, 5] = 1e6  # the assert fails after the store: CPython writes and raises
    try:
        call(f"checked{i}", checked_step, g, g_new, 100.0)
    except AssertionError as e:
        print("assert", i, e)
    snapshot(f"g_new{i}", g_new)
    g, g_new = g_new, g

s = rng.random((10, 10))
s_new = np.ones_like(s)
for i in range(25):
    call(f"sum{i}", step_then_sum, s, s_new)
    call(f"print{i}", step_then_print, s_new, s)
snapshot("s", s)
snapshot("s_new", s_new)

a = np.zeros((8, 6))
d = np.zeros((8, 6))
b = rng.random((6, 6))
c = np.arange(7, dtype=np.float32)
for i in range(25):
    call(f"rows{i}", rows_and_steps, a, d, b, c)
    b += 0.125
snapshot("a", a)
snapshot("d", d)
snapshot("c", c)
