# Issue 25, item 9: a trace or profile function sees every event of compiled
# code. With sys.settrace, sys.setprofile or threading.settrace set, a
# function the engine runs as a graph must run in CPython (debuggers,
# coverage and line profilers read its call, line and return events).
# expect: compiled f
import sys
import threading

import numpy as np
from _probe import call, snapshot


def f(a, b):
    c = a * b + 1.0
    for k in range(2):
        c = c + a
    return c


events = []


def tracer(frame, event, arg):
    if frame.f_code is f.__code__:
        events.append((event, frame.f_lineno - f.__code__.co_firstlineno))
    return tracer


def profiler(frame, event, arg):
    if frame.f_code is f.__code__:
        events.append(("profile", event))


for i in range(25):
    call(f"hot{i}", f, np.full(3, float(i)), np.ones(3))

sys.settrace(tracer)
r1 = f(np.ones(3), np.ones(3))
sys.settrace(None)
snapshot("traced", (r1, list(events)))
events.clear()

sys.setprofile(profiler)
r2 = f(np.ones(3), np.ones(3))
sys.setprofile(None)
snapshot("profiled", (r2, list(events)))
events.clear()

threading.settrace(tracer)
out = []
t = threading.Thread(target=lambda: out.append(f(np.ones(3), np.ones(3))))
t.start()
t.join()
threading.settrace(None)
del t  # its OS ident differs between runs
snapshot("thread traced", (out, list(events)))
events.clear()

for i in range(5):
    call(f"after{i}", f, np.full(3, float(i)), np.ones(3))
