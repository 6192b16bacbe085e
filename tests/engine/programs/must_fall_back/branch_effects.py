# An `if` on array data whose sides have effects (print, attribute writes), both
# sides taken while profiling (the loss alternates): the effects would need a
# conditional commit, so the function stays in CPython. (When the profiling calls
# took one side only, that side runs under an assert: profiled_branch_flip.py.)
# must-not-convert: report_step
import numpy as np
from _probe import snapshot, call


class Log:
    def __init__(self):
        self.worse = 0


def report_step(log, loss, best):
    if loss < best:
        print("improved", loss)
    else:
        log.worse += 1
    return loss * 1.0


log = Log()
for i in range(25):
    call(f"report{i}", report_step, log, np.array(0.2 if i % 2 else 0.8 + i / 100), 0.4)
snapshot("log", log)
