# Footgun: a global's value baked into the graph as a constant.
# expect: compiled apply
import numpy as np
from _probe import call

LR = 0.1
MODE = "sgd"


def apply(w, g):
    if MODE == "sgd":
        return w - LR * g
    return w - LR * np.sign(g)


w, g = np.ones(3), np.array([0.5, -2.0, 0.0])
for i in range(30):
    if i == 21:
        LR = 0.2
    if i == 24:
        MODE = "signsgd"
    if i == 27:
        del LR          # NameError from then on, as in CPython
    call(f"apply{i}", apply, w, g)
