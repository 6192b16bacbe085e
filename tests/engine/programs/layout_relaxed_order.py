# NumPy's memory order of results that leave a branch or a loop: the side
# taken (np.clip after a relaxed `if s > 1`) or the trips run (x.T each trip)
# decide it, so a graph compiled on C-ordered (3,1) arrays (C- and
# F-contiguous at once) and relaxed to a symbolic dim must not hand back a
# C-ordered result for an F-ordered input, nor a loop's carried array in
# the order of its value before the loop.
# expect: compiled clip_if_scaled, pick_side, transpose_trips
import numpy as np
from _probe import call


def clip_if_scaled(a, s):
    x = a * s
    if s > 1:
        x = np.clip(x, -1.0, 2.5)
    return x


def pick_side(a, s):
    if s > 1:
        x = a + 1.0
    else:
        x = a * 2.0
    return x, x.sum(axis=0), x.sum()


def transpose_trips(a, n):
    x = a * 1.0
    for i in range(n):
        x = x.T * 1.5
    return x


def scaled_trips(a, n):
    x = a
    for i in range(n):
        x = x * 1.5 + 0.25
    return x


rng = np.random.default_rng(11)
for i in range(30):
    s = 1.0 + (i % 2)
    if i < 20:
        a = rng.standard_normal((3, 1)) + 1.0  # C- and F-contiguous
    elif i % 3 == 0:
        a = np.asfortranarray(rng.standard_normal((2, 4)) + 1.0)
    elif i % 3 == 1:
        a = rng.standard_normal((5, 4)).astype(np.float32)
        a = np.asfortranarray(a)
    else:
        a = rng.standard_normal((6, 4))[::2]  # strided rows
    call(f"clip{i}", clip_if_scaled, a, s)
    call(f"side{i}", pick_side, a, s)

for i in range(30):
    a = rng.standard_normal((4, 4))
    if i >= 24:
        a = np.asfortranarray(a)
    # no trip for the first 20 calls: the loop is met when n varies
    n = 0 if i < 20 else 1 + i % 3
    call(f"trips{i}", transpose_trips, a, n)
    call(f"scaled{i}", scaled_trips, a, n)
