# JANUS's RNN example: the hidden state lives in self.state and is carried across calls.
# expect: compiled RNN.step
import numpy as np
from _probe import snapshot, call

rng = np.random.RandomState(0)


class RNN:
    def __init__(self, n_in, n_hidden):
        self.W_x = rng.standard_normal((n_in, n_hidden)) * 0.1
        self.W_h = rng.standard_normal((n_hidden, n_hidden)) * 0.1
        self.b = np.zeros(n_hidden)
        self.state = np.zeros((1, n_hidden))
        self.steps = 0

    def step(self, x):
        self.state = np.tanh(x @ self.W_x + self.state @ self.W_h + self.b)
        self.steps += 1
        return self.state.sum()


rnn = RNN(6, 8)
xs = rng.standard_normal((40, 1, 6))
for t in range(40):
    call(f"step{t}", rnn.step, xs[t])
snapshot("rnn", rnn)
