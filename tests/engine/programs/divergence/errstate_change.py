# Footgun: floating-point error state — np.errstate / np.seterr changed after
# compilation turns a silent inf into FloatingPointError, and warnings appear.
# expect: compiled ratio
import numpy as np
from _probe import call


def ratio(a, b):
    return a / b, np.log(b)


a, b = np.ones(3), np.array([1.0, 0.0, 2.0])
old = np.seterr(all="ignore")
for i in range(30):
    if i == 22:
        np.seterr(divide="raise")
    if i == 25:
        np.seterr(divide="warn", invalid="raise")
    if i == 27:
        np.seterr(all="ignore")
    call(f"ratio{i}", ratio, a, b - (i >= 25) * 3)
np.seterr(**old)
