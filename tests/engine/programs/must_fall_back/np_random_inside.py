# np.random inside the function: not convertible until draws are replayed exactly;
# the stream must be consumed exactly as in CPython.
# must-not-convert: noisy_relu
import numpy as np
from _probe import snapshot, call

np.random.seed(11)


def noisy_relu(x):
    return np.maximum(x + np.random.normal(0.0, 0.1, x.shape), 0.0)


for i in range(25):
    call(f"nr{i}", noisy_relu, np.linspace(-1, 1, 5))
snapshot("after", np.random.random())
