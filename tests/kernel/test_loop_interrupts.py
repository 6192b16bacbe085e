"""SIGINT at many random moments of a cell loop: after each, the loop's state
must be one CPython leaves.

CPython 3.11 takes signals at calls and backward jumps only. In a body such as
`W += 0.001 * g; n += 1; hist.append(i)` the first one after FOR_ITER binds
`i` is the append's call, so an interrupt always leaves a whole number of
iterations with the target still bound to the last one: `i == n - 1`,
`hist == list(range(n))`, `W` the sum of n updates added one by one (and a
`for` over an explicit iterator leaves it at item n). The engine takes the
interrupt at an iteration's marker, after FOR_ITER bound the next value; it
used to raise it there with nothing of that iteration committed (`i == n`).

Each test runs its rounds inside one cell: a SIGALRM at a random (seeded)
delay sends the kernel a real SIGINT (the path Jupyter's interrupt takes,
through the kernel's SIGINT router), the KeyboardInterrupt is caught and the
state checked. The engine-off kernel runs the same checks: they describe
CPython. Nothing is timed; a SIGINT that did not raise within the loop (a
10**7-iteration loop) is waited for, and counted as lost after 10 s.
"""

import pytest

from test_cell_loops import _report, _stdout, execute, kernels  # noqa: F401 (the fixture)

ROUNDS = 40

SETUP = """
import itertools, os, random, signal, time
import numpy as np

def _send_sigint(signum, frame):
    os.kill(os.getpid(), signal.SIGINT)

signal.signal(signal.SIGALRM, _send_sigint)

_sums = [0.0]

def w_after(n):
    # W's elements after n updates `W += 0.001 * g` (g ones): the same double
    # additions, one at a time (C's accumulate; no loop the engine could run).
    if n >= len(_sums):
        _sums.extend(list(itertools.accumulate(itertools.repeat(0.001, n + 1 - len(_sums)),
                                               initial=_sums[-1]))[1:])
    return _sums[n]

def wait_for_the_interrupt():
    # CPython 3.11 can leave a tripped handler with its eval breaker off:
    # pthread_sigmask runs the pending handlers.
    start = time.monotonic()
    while time.monotonic() < start + 10.0:
        signal.pthread_sigmask(signal.SIG_BLOCK, ())

big = list(range(3 * 10**6))
rows = np.arange(6.0 * 10**6).reshape(-1, 2)

def loop_in_function(W, g, hist):
    n, i = 0, -1
    try:
        for i in range(10**7):
            W += 0.001 * g
            n += 1
            hist.append(i)
    except KeyboardInterrupt:
        return i, n, True
    return i, n, False
"""

# A round: fresh names, the alarm armed, the loop until the interrupt, the
# checks. `{loop}` binds i (or j) and n; `{check}` is true for a state CPython
# can leave.
ROUND = """
_rng = random.Random({seed})
_bad, _lost, _inside = [], 0, 0
for _r in range({rounds}):
    W = np.zeros(100); g = np.ones(100); n = 0; hist = []; i = -1; j = -1; row = None
    it = iter(range(10**7))
    interrupted = False
    try:
        signal.setitimer(signal.ITIMER_REAL, _rng.uniform(0.0, 0.02))
{loop}
        wait_for_the_interrupt()
    except KeyboardInterrupt:
        interrupted = True
    signal.setitimer(signal.ITIMER_REAL, 0)
    _inside += interrupted
    _lost += not interrupted
    _state = ({check}, len(hist) == n, bool((W == w_after(n)).all()))
    if not all(_state):
        _bad.append((_r, i, j, n, len(hist), _state))
print(_inside, _lost, _bad[:5])
"""

BODY = """            W += 0.001 * g
            n += 1
            hist.append({item})"""

LOOPS = {
    "range": ("for i in range(10**7):", "i", "i == n - 1 and hist == list(range(n))"),
    "list": ("for i in big:", "i", "i == n - 1 and hist == list(range(n))"),
    "iterator": ("for i in it:", "i",
                 "i == n - 1 and hist == list(range(n)) and next(it) == n"),
    "enumerate": ("for j, i in enumerate(big):", "j",
                  "j == n - 1 and i == j and hist == list(range(n))"),
    "zip": ("for i, j in zip(big, range(10**7)):", "j",
            "i == j == n - 1 and hist == list(range(n))"),
    "rows": ("for row in rows:", "row[1]",
             "(n == 0 or row[0] == 2.0 * (n - 1)) and hist == [2.0 * k + 1 for k in range(n)]"),
}


def _loop_code(name):
    if name == "while":
        return ("        while n < 10**7:\n"
                "            W += 0.001 * g\n"
                "            n += 1\n"
                "            hist.append(n - 1)", "hist == list(range(n))")
    if name == "function":
        return ("        i, n, interrupted = loop_in_function(W, g, hist)\n"
                "        if interrupted:\n"
                "            raise KeyboardInterrupt", "i == n - 1 and hist == list(range(n))")
    header, item, check = LOOPS[name]
    return "        " + header + "\n" + BODY.format(item=item), check


def run_rounds(kc, name, seed):
    execute(kc, "%reset -f", store_history=False)
    reply, messages = execute(kc, SETUP)
    assert reply["status"] == "ok", reply
    loop, check = _loop_code(name)
    code = ROUND.format(seed=seed, rounds=ROUNDS, loop=loop, check=check)
    reply, messages = execute(kc, code, timeout=600)
    assert reply["status"] == "ok", reply
    inside, lost, bad = _stdout(messages).splitlines()[-1].split(" ", 2)
    return int(inside), int(lost), bad


VARIANTS = ["range", "list", "iterator", "enumerate", "zip", "rows", "while", "function"]


@pytest.mark.parametrize("mode", ["off", "thr0", "default"])
@pytest.mark.parametrize("name", VARIANTS)
def test_an_interrupted_loop_leaves_a_state_cpython_leaves(kernels, name, mode):
    km, kc = kernels[mode]
    inside, lost, bad = run_rounds(kc, name, seed=VARIANTS.index(name) + 1)
    assert lost == 0, f"{lost} SIGINTs never raised"
    assert inside == ROUNDS
    assert bad == "[]", f"states CPython cannot leave (round, i, j, n, len(hist), checks): {bad}"
    if mode == "thr0":
        # The rounds ran the loop through the engine (graphs or chunks).
        ran = [r for r in _report(kc) if r["kind"] == "loop" and r["graph_runs"] > 0]
        assert ran, _report(kc)
        if name in ("range", "function", "while"):
            assert any(r.get("chunks", 0) > 0 for r in ran), ran


def test_the_kernel_works_after_the_rounds(kernels):
    for mode in ("off", "thr0", "default"):
        km, kc = kernels[mode]
        reply, messages = execute(kc, "print(6 * 7)")
        assert reply["status"] == "ok" and _stdout(messages) == "42\n", (mode, reply)
        assert km.is_alive()
