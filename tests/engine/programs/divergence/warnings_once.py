# Footgun: Python warnings — NumPy's RuntimeWarnings are shown once per location
# under the default filter, and a filter change after compilation must take effect.
# expect: compiled risky
import warnings
import numpy as np
from _probe import call


def risky(x):
    return np.sqrt(x), np.log(x)


for i in range(30):
    if i == 24:
        warnings.simplefilter("always")
    if i == 27:
        warnings.simplefilter("error")
    call(f"risky{i}", risky, np.array([1.0, -1.0, 0.0]))
