# SGD with NumPy's floating-point errors ignored: the in-place parameter updates
# are sunk stores (the graph writes the user's arrays, no copy at commit); a
# view target, an update read back and a print before an update keep the copy.
# The gradient explodes on the last calls and trips an assert after the store.
# expect: compiled sgd, sgd_logged
import numpy as np
from _probe import snapshot, call

np.seterr(all="ignore")
rng = np.random.default_rng(3)
params = {"W1": rng.standard_normal((32, 16)), "b1": np.zeros(16),
          "W2": rng.standard_normal((16, 4)).astype(np.float32)}
grads = {k: (rng.standard_normal(v.shape) * 0.1).astype(v.dtype) for k, v in params.items()}
panel = np.zeros((8, 12))


def sgd(params, grads, lr, panel_view):
    for name in ("W1", "b1", "W2"):
        params[name] -= lr * grads[name]
    panel_view += lr
    assert np.abs(grads["b1"]).max() < 1e3, "exploding gradient"


def sgd_logged(params, grads, lr):
    print("lr", lr)
    params["b1"] -= lr * grads["b1"]
    return float(params["b1"].sum())


for i in range(30):
    if i == 26:
        grads["b1"][3] = 1e4
    try:
        call(f"sgd{i}", sgd, params, grads, 0.05, panel[:, ::3])
    except AssertionError as e:
        print("assert", i, e)
    call(f"logged{i}", sgd_logged, params, grads, 0.01)
snapshot("params", params)
snapshot("panel", panel)
