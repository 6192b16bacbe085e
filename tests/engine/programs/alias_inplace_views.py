# Names and views that share an argument's memory see later in-place writes
# to it (issue 25, items 2 and 5): `x = b` updated in place inside a loop
# whose trip count changes between calls (an IR LOOP) while the body reads b;
# views (`a[:]`, `a[1:]`, `a.T`, `a[None]`, `a.reshape(-1)`, a view of a
# view, a view of a computed array) read after `a += ...`, `a *= v`,
# `a[0] = ...`, np.copyto or out= into the base; an attribute and a global
# bound to another name; a list holding the array and a view of it; a view
# read inside a loop that updates its base through another name; a callee's
# loop on an argument passed twice. Arguments are fresh arrays, views of a
# larger base or one array passed twice, and trip counts and shapes change
# after the first 20 calls, so the calls meet compiled graphs.
# expect: compiled loop_alias, while_alias, both_names, loop_view, callee_loop, times_view,
# expect: compiled reshaped, sliced, transposed, newaxis, chained, computed_view, item_set,
# expect: compiled copied_in, out_into, Model.step, global_alias, listed
import numpy as np
from _probe import snapshot, call


def loop_alias(b, k):
    x = b
    for t in range(k):
        x += 1.0
        x += b.sum()
    return b


def while_alias(b, limit):
    x = b
    while x[0] < limit:
        x += 1.0
        x += b[1]
    return b * 1.0


def both_names(b, k):
    x = b
    for t in range(k):
        x += 1.0
        b *= 1.5
    return x


def loop_view(b, k):
    x = b
    v = b[:1]
    total = np.zeros(1)
    for t in range(k):
        x += v.sum()
        total += v
    return v * 1.0, total


def _bump(x, b, k):
    for t in range(k):
        x += 1.0
        x += b.sum()
    return b * 1.0


def callee_loop(b, k):
    return _bump(b, b, k)


def times_view(a):
    v = a[:]
    for j in range(2):
        a *= v
    return a


def reshaped(a):
    v = a.reshape(-1)
    a += 1
    return v * 1.0


def sliced(a):
    v = a[1:]
    s = v.sum()
    a += 1.0
    return s + v.sum(), v[::2] * 1.0


def transposed(a, w):
    v = a.T
    a *= 2.0
    return v @ w


def newaxis(a):
    v = a[None]
    a -= 0.5
    return v * 1.0


def chained(a):
    v = a[1:]
    w = a.reshape(-1)[2:]
    u = w[None]
    a *= 3.0
    return u * 1.0, v[0] * 1.0, v.T[1] * 1.0


def computed_view(a):
    c = a * 2.0
    v = c[:2]
    c += 1.0
    return v * 1.0


def item_set(a):
    v = a[:]
    a[0] = 5.0
    return v * 1.0


def copied_in(a, b):
    v = a[1:]
    np.copyto(a, b)
    return v * 1.0


def out_into(a):
    v = a[:2]
    np.add(a, 1.0, out=a)
    return v * 1.0


class Model:
    def __init__(self, n):
        self.W = np.arange(float(n))

    def step(self):
        W = self.W
        v = self.W[1:]
        self.W += 1.0
        return W * 2.0, v.sum()


G = np.arange(3.0)


def global_alias():
    global G
    x = G
    v = G[::2]
    G += 1.0
    return x * 1.0, v * 1.0


def listed(a):
    items = [a, a[1:]]
    items[0] += 1.0
    return items[1] * 1.0, a * 1.0


base = np.arange(24.0)
model = Model(4)
for i in range(40):
    k = 2 if i < 20 else 2 + i % 4
    rows = 2 if i < 20 else 2 + i % 3
    call(f"loop_alias{i}", loop_alias, np.array([1.0, 2.0 + i]), k)
    call(f"while_alias{i}", while_alias, np.array([1.0, 2.0]), 10.0 + (0 if i < 20 else i))
    call(f"both_names{i}", both_names, np.array([1.0, -2.0]), k)
    call(f"loop_view{i}", loop_view, np.array([1.0, 2.0, 3.0]), k)
    call(f"callee_loop{i}", callee_loop, np.array([0.5, 1.0]), k)
    # A fresh array, or a view of a larger base (its writes reach the base).
    fresh = np.array([2.0, 3.0]) + i % 3
    call(f"times_view{i}", times_view, fresh if i % 2 else base[i % 5:i % 5 + 2])
    base[:8] = np.arange(8.0) * 0.25
    call(f"reshaped{i}", reshaped, np.ones((rows, 2)) * i)
    call(f"sliced{i}", sliced, np.arange(float(3 + rows)) + i)
    call(f"transposed{i}", transposed, np.arange(2.0 * rows).reshape(rows, 2) + i, np.ones(rows))
    call(f"newaxis{i}", newaxis, np.arange(float(rows)) * i)
    call(f"chained{i}", chained, np.arange(2.0 * (rows + 1)).reshape(rows + 1, 2) + i)
    call(f"computed_view{i}", computed_view, np.arange(float(rows + 1)) + i)
    call(f"item_set{i}", item_set, np.arange(float(rows)) - i)
    call(f"copied_in{i}", copied_in, np.arange(3.0), np.full(3, float(i)))
    call(f"out_into{i}", out_into, np.arange(float(rows + 1)) * 0.5 + i)
    call(f"step{i}", model.step)
    call(f"global_alias{i}", global_alias)
    call(f"listed{i}", listed, np.arange(float(rows + 1)) + i)
snapshot("final", (base, model.W, G))
