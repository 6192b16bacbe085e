# Issue 25: inputs that vary between calls. Every miss of the random
# differential run came from a hot function meeting, after it compiled,
# arguments of another layout, shape, rank, dtype or aliasing than it was
# compiled for. Each function here is called 22 times with one kind of
# argument (it compiles at both thresholds), then with every other kind in
# turn, then with the first again: C and F order, strided and negative-stride
# views, transposes, size-1 and empty dims, 0-d arrays, other dtypes,
# one array passed twice and overlapping views of one base.
# expect: compiled elementwise, update, reductions, products, views_after_write, shift, clip_branch, loop, into_out, leaky, views_in_loop, alias_in_loop, inplace_scale
import numpy as np
from _probe import call, snapshot


def elementwise(a, b):
    return np.tanh(a * b + 1.0) - a


def update(W, g):
    W -= 0.1 * g
    return W


def reductions(x):
    return x.sum(axis=0), x.mean(axis=-1, keepdims=True), x.max()


def products(A, B):
    return A @ B.T, np.dot(A, B.T)


def views_after_write(a):
    v = a.T
    w = a[::2]
    a += 1.0
    return v * 2.0, w + 0.0


def shift(u):
    u[1:] = u[:-1] * 0.5
    return u


def clip_branch(x, s):
    y = x * s
    if s > 1:
        y = np.clip(y, -1.0, 2.5)
    return y


def loop(x, k):
    for t in range(k):
        x = x * 0.5 + 1.0
    return x


def into_out(a, b, out):
    np.add(a, b, out=out)
    return out


def leaky(x):
    return np.where(x > 0, x, 0.1 * x)


def views_in_loop(a):
    v = a[:]
    for j in range(2):
        a *= v
    return a


def alias_in_loop(b, k):
    x = b
    for t in range(k):
        x += 1.0
        x += b.sum()
    return b


def inplace_scale(b, a):
    b *= a
    return b


rng = np.random.default_rng(25)


def base(shape=(4, 6), dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


# Each kind makes a fresh 2-d-ish array (the argument under test).
KINDS = {
    "c": lambda: base(),
    "f": lambda: np.asfortranarray(base()),
    "strided": lambda: base((4, 12))[:, ::2],
    "negative": lambda: base()[::-1, ::-1],
    "transposed": lambda: base((6, 4)).T,
    "column": lambda: base((4, 1)),
    "row": lambda: base((1, 6)),
    "empty": lambda: base((0, 6)),
    "other_shape": lambda: base((3, 5)),
    "float32": lambda: base(dtype=np.float32),
    "int": lambda: (base() * 10).astype(np.int64),
    "zero_d": lambda: np.array(0.75),
    "vector": lambda: base((6,)),
}


def args_for(fn, make):
    x = make()
    if fn is elementwise:
        return (x, make())
    if fn is update:
        return (x, np.ones_like(x))
    if fn is products:
        return (x, make()) if x.ndim == 2 else (x, x)
    if fn is clip_branch:
        return (x, 2.0)
    if fn in (loop, alias_in_loop):
        return (x, 2 + x.size % 3)
    if fn is inplace_scale:
        return (x, make())
    if fn is into_out:
        return (x, make(), np.empty_like(x))
    return (x,)


def aliased(fn, make):
    # One array in every array slot, or overlapping views of one base.
    x = make()
    if fn in (elementwise, products, inplace_scale):
        return (x, x)
    if fn is update:
        return (x, x)
    if fn is into_out:
        return (x, x, x)
    return None


FUNCTIONS = [elementwise, update, reductions, products, views_after_write, shift, clip_branch,
             loop, into_out, leaky, views_in_loop, alias_in_loop, inplace_scale]

try:
    from specula import reset
except ImportError:  # the program also runs under plain python3
    def reset():
        pass

# Each round compiles every function for another first kind: what a guard
# admits after a relaxed compile depends on what came first.
for warm in ("c", "column", "zero_d", "f", "strided"):
    reset()
    for fn in FUNCTIONS:
        name = f"{warm}/{fn.__name__}"
        for i in range(22):
            args = args_for(fn, KINDS[warm])
            call(f"{name}/warm/{i}", fn, *args)
        for kind, make in KINDS.items():
            for i in range(2):
                args = args_for(fn, make)
                call(f"{name}/{kind}/{i}", fn, *args)
                snapshot(f"{name}/{kind}/{i}/args", args)
                both = aliased(fn, make)
                if both is not None:
                    call(f"{name}/{kind}/{i}/aliased", fn, *both)
                    snapshot(f"{name}/{kind}/{i}/aliased args", both)
        for i in range(3):
            args = args_for(fn, KINDS[warm])
            call(f"{name}/again/{i}", fn, *args)
