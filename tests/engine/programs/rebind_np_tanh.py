# `np.tanh` is rebound after compilation, then restored; the graph must notice both.
# expect: compiled layer
import numpy as np
from _probe import snapshot, call

real_tanh = np.tanh
calls = []


def fake_tanh(x):
    calls.append(x.shape)
    return real_tanh(x) * 0.5


def layer(x, w):
    return np.tanh(x @ w) + np.tanh(0.25)


x = np.linspace(-3, 3, 10).reshape(5, 2)
w = np.array([[0.5, -1.0], [2.0, 0.25]])
for i in range(30):
    if i == 20:
        np.tanh = fake_tanh
    if i == 26:
        np.tanh = real_tanh
    call(f"layer{i}", layer, x, w)
snapshot("calls", calls)
snapshot("restored", np.tanh is real_tanh)
