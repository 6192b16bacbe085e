# 0-d arrays stay arrays (issue 25, items 1 and 6): an in-place operator writes
# into the user's 0-d array (argument, global, attribute, list item, out=), the
# array handed back is that very object, and an in-place update whose broadcast
# shape is larger than the 0-d target raises NumPy's ValueError after the graph
# was compiled. Methods and functions that keep a 0-d array's data hand out a
# 0-d array (copy, np.copy, zeros_like, where, astype, .T, reshape), the ufuncs
# behind abs() and ** a NumPy scalar, as NumPy does; a NumPy scalar's own
# methods give a NumPy scalar. An in-place operator casts its result into the
# target with casting='same_kind' (a 0-d float32 array += a Python float computes
# in float64, every operand being a scalar; an int8 array += 300 in int16), and a
# cast NumPy refuses raises UFuncTypeError after compilation.
# expect: compiled bump, scale, bump_global, bump_attr, bump_items, add_out, chain, kept, scalar_kept, ufunc_like, step, step_ints, step_rows
import numpy as np
from _probe import snapshot, call

G0 = np.zeros(())
G1 = np.array(3, dtype=np.int64)


class Holder:
    pass


holder = Holder()
holder.x = np.zeros(())


def bump(b):
    b += 1.0


def scale(b, a):
    b *= a
    return b


def bump_global():
    global G0, G1
    G0 += 1.0
    G1 *= 3


def bump_attr(h, v):
    h.x += v
    return h.x


def bump_items(items, v):
    items[0] += v
    items[1] *= np.float32(2)
    return items


def add_out(b, a):
    np.add(a, 1.0, out=b)
    np.multiply(b, 2.0, out=b)
    return b


def chain(b, xs):
    for i in range(3):
        b += xs[i]          # xs[i] is a NumPy scalar
    b -= xs.sum()           # a reduction's NumPy scalar
    return b


def kept(a):
    return (a.copy(), np.copy(a), np.zeros_like(a), np.ones_like(a),
            np.where(a > 0, a, 0.0), a.astype(np.float32), a.T)


def scalar_kept(s):
    return (s.copy(), np.copy(s), np.zeros_like(s), np.ones_like(s),
            np.where(s > 0, s, 0.0), s.astype(np.float32), s.T, s.reshape(()))


def ufunc_like(a):
    return abs(a), a ** 2, a ** 0.5, a * 2, -a, np.tanh(a)


def step(b, v):
    b += v
    b *= 3
    return b


def step_ints(b, v):
    b += v
    b *= 3
    return b


def step_rows(b, v):
    b += v
    b *= 3
    return b


rng = np.random.default_rng(25)
for i in range(24):
    b = np.zeros(())                       # a new 0-d array every call
    call(f"bump{i}", bump, b)
    snapshot(f"bumped{i}", b)
    b = np.array(float(i))
    call(f"scale{i}", scale, b, np.array(3.0))
    snapshot(f"scaled{i}", b)
    b32 = np.array(i, dtype=np.float32)
    call(f"scale32_{i}", scale, b32, np.array(1.5, dtype=np.float32))
    bi = np.array(i, dtype=np.int64)
    call(f"scale_int{i}", scale, bi, np.array(-7, dtype=np.int64))
    call(f"global{i}", bump_global)
    snapshot(f"globals{i}", (G0, G1))
    call(f"attr{i}", bump_attr, holder, np.float64(i))
    items = [np.array(float(i)), np.array(i, dtype=np.float32)]
    call(f"items{i}", bump_items, items, 0.5)
    b = np.zeros(())
    call(f"out{i}", add_out, b, np.array(i / 3.0))
    b = np.array(float(i))
    call(f"chain{i}", chain, b, np.arange(4.0) * (i + 1))
    call(f"kept{i}", kept, np.array(i - 3.5))
    call(f"kept32_{i}", kept, np.array(i, dtype=np.float32))
    call(f"scalar_kept{i}", scalar_kept, np.float64(i - 3.5))
    call(f"ufunc_like{i}", ufunc_like, np.array(i + 0.25))
    b32 = np.array(rng.standard_normal(), dtype=np.float32)
    call(f"step32_{i}", step, b32, rng.standard_normal() * 1e-3)
    call(f"step_i8_{i}", step_ints, np.array(i * 11 % 100, dtype=np.int8), 300 + i)
    call(f"step_rows{i}", step_rows, rng.standard_normal(5).astype(np.float32), rng.standard_normal(5))
    call(f"step_i8_rows{i}", step_rows, np.arange(3, dtype=np.int8) * i, 300)
    if i >= 20:
        # int64 += float64: NumPy's UFuncTypeError (same_kind), 0-d and not.
        call(f"refused_cast{i}", step_ints, np.array(i), 0.5)
        call(f"refused_cast_rows{i}", step_rows, np.arange(3), np.ones(3) / 3)
        # After compilation: NumPy refuses to broadcast into the 0-d target.
        call(f"broadcast{i}", scale, np.array(2.0), np.ones((3, 1)))
        call(f"broadcast_row{i}", scale, np.array(2.0), np.ones(4))
snapshot("holder", holder.x)
