# Footgun: subclasses and __array_ufunc__ overrides appearing after compilation,
# including a subclass whose __array_wrap__ changes results.
# expect: compiled f
import numpy as np
from _probe import call


class Logged:
    def __init__(self, v):
        self.v = v

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        args = [i.v if isinstance(i, Logged) else i for i in inputs]
        return ("logged", ufunc.__name__, getattr(ufunc, method)(*args, **kw))


class Rounded(np.ndarray):
    def __array_wrap__(self, obj, context=None, return_scalar=False):
        return np.round(np.asarray(obj), 1).view(Rounded)


def f(x):
    return np.add(x, 0.123)


for i in range(30):
    x = np.arange(3.0)
    if i >= 22:
        x = Logged(np.arange(3.0))
    if i >= 26:
        x = np.arange(3.0).view(Rounded)
    call(f"f{i}", f, x)
