# math functions on Python scalars: evaluated by Python on specialised values
# (exp, log, tanh of a learning-rate schedule), math.sqrt and math.fabs on floats
# that change between calls (graph inputs), and math.sqrt of a negative value
# after compilation (ValueError from CPython).
# expect: compiled schedule, norm_step
import math
import numpy as np
from _probe import snapshot, call


def schedule(w, epoch, base):
    decay = math.exp(-0.1 * epoch) * math.tanh(base) + math.log(1.0 + epoch)
    return w * decay, decay, math.floor(base * 10)


def norm_step(w, g, eps):
    scale = math.sqrt(eps) + math.fabs(eps - 0.25)
    return w - g * scale, scale


w = np.linspace(-1.0, 1.0, 7)
for i in range(25):
    call(f"sched{i}", schedule, w, 3, 0.7)
    call(f"norm{i}", norm_step, w, w * 0.1, 0.01 * (i + 1))
try:
    norm_step(w, w, -1.0)
except ValueError as e:
    print("ValueError:", e)
