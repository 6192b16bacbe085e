# Footgun: user code the conversion would run — a NumPy print formatter (set with
# np.set_printoptions) that counts its calls, while a hot function prints arrays
# in f-strings. CPython calls the formatter once per element printed; a converter
# that tried the f-string's format spec on a sample array would call it once more
# per conversion, and that extra call would be seen (the count, or any other
# effect of the formatter). The formatter is set after the function compiled,
# then the argument's shape changes (a guard miss: converted again while the
# formatter is set), then a second formatter replaces it, then the array's
# str() itself is a user function (np.set_string_function).
# expect: compiled report_step, describe
import numpy as np
from _probe import snapshot, call

formatted = []


def counting(x):
    formatted.append(float(x))
    return f"<{x:.2f}>"


def report_step(w, step):
    w = w * 0.5 + 1.0
    print(f"step {step}: w={w} mean={w.mean():.3f}")
    return w


def describe(v):
    print(f"v={v}")
    return v * 1.0


w = np.arange(3.0)
for step in range(10):
    w = call(f"step{step}", report_step, w, step)
    call(f"describe{step}", describe, w)

np.set_printoptions(formatter={"float": counting})
for step in range(10, 16):
    w = call(f"step{step}", report_step, w, step)
snapshot("formatted by the compiled function", list(formatted))

w = np.arange(4.0)
for step in range(16, 22):
    w = call(f"step{step}", report_step, w, step)
snapshot("formatted after a new shape", list(formatted))

np.set_printoptions(formatter={"float": lambda x: (formatted.append(-1.0), f"[{x:.1f}]")[1]})
for step in range(22, 26):
    w = call(f"step{step}", report_step, w, step)
np.set_printoptions(formatter=None)
snapshot("formatted with print options", len(formatted))

# An array's str() replaced altogether (np.set_string_function): called once per
# array printed, and never on a sample array of the converter's. describe()
# compiled before; a new shape converts it again.
np.set_string_function(lambda a: (formatted.append(a.shape), "<array>")[1], repr=False)
for i in range(4):
    call(f"described{i}", describe, np.arange(3.0))
for i in range(4):
    call(f"reshaped{i}", describe, np.arange(5.0))
np.set_string_function(None, repr=False)
snapshot("formatted in all", list(formatted[-10:]))
