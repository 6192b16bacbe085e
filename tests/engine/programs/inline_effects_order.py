# Helpers inlined into the hot function have effects of their own (print, list
# append, global rebinding, attribute and in-place array writes) interleaved with
# the caller's: they must reach Python in program order, all at once.
# expect: compiled train_step
import numpy as np
from _probe import snapshot, call

log = []
steps = 0


class Stats:
    def __init__(self):
        self.last_loss = 0.0
        self.total = np.zeros(3)


def record(stats, loss, v):
    global steps
    steps += 1
    stats.total += v
    log.append(steps)
    print("record", steps, loss)
    return loss * 2.0


def forward(x, w):
    h = np.tanh(x @ w)
    print("forward", h.shape)
    return h


def train_step(x, w, stats):
    print("step begins")
    h = forward(x, w)
    loss = float(h.sum())
    doubled = record(stats, loss, h[0])
    stats.last_loss = doubled
    log.append("end")
    return doubled


stats = Stats()
x = np.linspace(-1, 1, 6).reshape(2, 3)
w = np.arange(9.0).reshape(3, 3) / 10
for i in range(26):
    call(f"train_step{i}", train_step, x + i / 50, w, stats)
snapshot("stats", stats)
snapshot("log", log)
