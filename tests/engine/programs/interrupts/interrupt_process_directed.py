# A SIGINT sent to the process goes to any thread that does not block it. The
# engine starts threads of its own (the CPU backend's lanes, the hook's re-arm
# timer); Python handles signals on the main thread only, and a SIGINT one of
# those threads caught would set Python's flag without waking the main thread's
# eval loop: the KeyboardInterrupt would come late, or never while a
# pure-Python loop spins (the lost interrupt of a loaded machine, where the OS
# more often picks another thread). Here the main thread blocks SIGINT while
# the process is sent one, which forces the OS to choose: the signal must stay
# pending for the main thread and raise the moment it unblocks.
# expect: compiled step
import os
import signal
import sys

import numpy as np
from _probe import snapshot
from _interrupts import rounds


def step(a, b):
    np.add(a, 1.0, out=a)
    np.multiply(b, 0.5, out=b)
    return float(a[0] + b[0])


def words(text):
    return text.split()  # never converted: its calls let the hook park


a, b = np.zeros(4096), np.ones(4096)
for _ in range(50):       # compiled and run: the backend's lanes exist
    step(a, b)
for _ in range(20_000):   # only code the engine leaves alone: the hook parks
    words("a b c")

ROUNDS = rounds(200)
kept_pending = raised = lost = late = taken_elsewhere = 0
for r in range(ROUNDS):
    try:
        step(a, b)
    except KeyboardInterrupt:   # an earlier round's SIGINT surfacing only now
        late += 1
        continue
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        # os.kill checks for signals itself: a KeyboardInterrupt here means
        # another thread took the signal and its handler ran there. (The
        # tests run OpenBLAS with one thread: NumPy's own workers would.)
        os.kill(os.getpid(), signal.SIGINT)
    except KeyboardInterrupt:
        taken_elsewhere += 1
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        continue
    kept_pending += signal.SIGINT in signal.sigpending()
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        spins = 0
        while spins < 5_000_000:   # pure Python: only the eval loop can raise here
            spins += 1
        lost += 1
    except KeyboardInterrupt:
        raised += 1

# A round whose signal did not wait for the main thread is a violation: the
# thread that took it was not ours to give it to.
strays = ROUNDS - kept_pending
summary = {"rounds": ROUNDS, "interrupted_inside": raised, "interrupted_after": 0,
           "lost_interrupts": lost,
           "violations": [f"{strays} SIGINTs taken by another thread"] if strays else [],
           "violation_count": strays,
           "kept_pending": kept_pending, "late": late,
           "taken_elsewhere": taken_elsewhere}
print(summary, file=sys.stderr)
snapshot("summary", summary)
