# Lists a hot function builds itself: appended to in a loop, returned, stored
# in a global and in a list argument, holding the same array twice, an
# argument, or lists; the caller then mutates what it got back. Aliasing is
# part of the record (the same array object twice, an item that is also the
# argument or a global).
# expect: compiled unroll, pairs, publish, nested, summed
import numpy as np
from _probe import snapshot, call

LATEST = None
log = []


def unroll(x, w):
    hs, ps = [x], []
    for t in range(4):
        h = np.tanh(hs[t] * w + 0.5)
        hs.append(h)
        ps.append(h * 0.5)
    return hs, ps, len(hs), hs[-1]


def pairs(x):
    y = x * 2.0
    out = [y, y, x]
    out.append(y)
    out.append(x + 1.0)
    return out


def publish(x):
    global LATEST
    acc = [x * 0.5]
    LATEST = acc
    log.append(acc)
    acc.append(x * 3.0)  # after it was stored: the stored list has it too
    print("published", len(acc))
    return len(acc)


def nested(x):
    rows = [[x * 1.0], [x * 2.0]]
    rows[0].append(x * 3.0)
    first = rows[0]
    first.append(x + 4.0)
    return rows, len(first)


def summed(x, ws):
    terms = [w * x for w in ws]
    total = np.zeros_like(x)
    for t in terms:
        total = total + t
    grads = [np.zeros_like(w) for w in ws]
    for w, g in zip(ws, grads):
        g += w * total.sum()
    return total, grads


ws = [np.linspace(0.1, 0.4, 3), np.linspace(-1.0, 1.0, 3)]
for i in range(25):
    x = np.arange(3.0) + 0.1 * i
    res = call(f"unroll{i}", unroll, x, 0.3)
    snapshot(f"unroll_same{i}", (res, x))
    got = call(f"pairs{i}", pairs, x)
    snapshot(f"pairs_same{i}", (got, x))
    # The caller mutates what it got back: the list, and an array in it twice.
    got.append(got[0])
    got[1] += 100.0
    snapshot(f"pairs_mutated{i}", got)
    call(f"publish{i}", publish, x)
    snapshot(f"latest{i}", (LATEST, log[-1]))
    rows = call(f"nested{i}", nested, x)
    rows[0][0].append(1.5)
    snapshot(f"nested_mutated{i}", rows)
    call(f"summed{i}", summed, x, ws)
snapshot("log", log)
