# Class-level attributes: a counter on the class and a shared array, mutated
# through instances and through the class.
# expect: compiled Layer.forward
import numpy as np
from _probe import snapshot, call


class Layer:
    total_calls = 0
    shared_bias = np.zeros(2)

    def __init__(self, scale):
        self.scale = scale

    def forward(self, x):
        Layer.total_calls += 1
        self.shared_bias += 0.5
        return x * self.scale + self.shared_bias


layers = [Layer(1.0), Layer(-2.0)]
for i in range(26):
    call(f"f{i}", layers[i % 2].forward, np.arange(2.0))
snapshot("layers", layers)
