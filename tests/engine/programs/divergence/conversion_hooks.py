# Footgun: user hooks answered once at conversion — a hot function asks
# isinstance() of an argument and casts with x.astype(d). CPython runs the hooks
# those builtins consult at every call: a metaclass __instancecheck__ (here one
# the metaclass gains after the function compiled), a __class__ property of the
# instance, a `dtype` property of the object given as dtype. A converter that
# answered them while converting would run each hook once (or never) and fold
# its answer into the graph: the hooks' effects (here, a counter) go missing
# from every later call. Last, a dict read at an int key (`table[3]`) holds a
# user key hashing like 3, whose __eq__ CPython's lookup runs once per call: a
# converter reading the item itself would run it once more per conversion.
# expect: compiled cast
import numpy as np
from _probe import snapshot, call

hook_calls = []


class Checked(type):
    pass


class Fast(metaclass=Checked):
    pass


class Plain:
    pass


class Posing:
    """Claims to be an ndarray through a __class__ property."""

    @property
    def __class__(self):
        hook_calls.append("__class__")
        return np.ndarray


class Narrow:
    """Names its dtype through a property, as np.dtype() reads it."""

    @property
    def dtype(self):
        hook_calls.append("dtype")
        return np.dtype(np.float32)


def counting_check(cls, obj):
    hook_calls.append("__instancecheck__")
    return True


def scale(x, kind):
    if isinstance(kind, Fast):
        x = x * 2.0
    return x * 0.5


def is_array(x, thing):
    if isinstance(thing, np.ndarray):
        x = x + 1.0
    return x * 0.5


def cast(x, d):
    return x.astype(d) * 2


class Key:
    """Hashes like the int 3; equal only to itself."""

    def __hash__(self):
        return 3

    def __eq__(self, other):
        hook_calls.append("__eq__")
        return self is other


table = {Key(): "the user's key", 3: np.arange(3.0)}


def weighted(x):
    return x * table[3]


for i in range(12):
    call(f"plain{i}", scale, np.arange(3.0), Plain())
    call(f"array{i}", is_array, np.arange(3.0), np.ones(2))
    call(f"cast{i}", cast, np.arange(3.0), np.float32)
Checked.__instancecheck__ = counting_check
for i in range(6):
    call(f"checked{i}", scale, np.arange(3.0), Plain())
snapshot("after __instancecheck__", list(hook_calls))
for i in range(6):
    call(f"posing{i}", is_array, np.arange(3.0), Posing())
snapshot("after __class__", list(hook_calls))
for i in range(6):
    call(f"narrow{i}", cast, np.arange(3.0), Narrow())
snapshot("after .dtype", list(hook_calls))
for i in range(16):
    call(f"weighted{i}", weighted, np.ones(3) if i < 10 else np.ones(3, dtype=np.float32))
snapshot("with a dict key", list(hook_calls))
