# Footgun: NumPy functions rebound after compilation — np.dot, np.exp, the `np`
# global itself, and an attribute of an alias module.
# expect: compiled layer
import types
import numpy as np
from _probe import snapshot, call

real = {"dot": np.dot, "exp": np.exp}
log = []


def layer(x, w):
    return np.exp(np.dot(x, w)).sum()


x, w = np.ones((2, 3)), np.full((3, 2), 0.1)
for i in range(30):
    if i == 20:
        np.dot = lambda a, b: (log.append("dot"), real["dot"](a, b) * 2)[1]
    if i == 22:
        np.dot = real["dot"]
        np.exp = lambda a: a + 1
    if i == 24:
        np.exp = real["exp"]
        np = types.SimpleNamespace(exp=real["exp"], dot=lambda a, b: real["dot"](a, b) - 1)
    if i == 27:
        import numpy as np
    call(f"layer{i}", layer, x, w)
snapshot("log", log)
