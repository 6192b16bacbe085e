"""Profiled branch outcomes and trip counts, and `for` over a varying range as a loop.

The differential programs (programs/profiled_*.py, range_loop_varying.py) prove the
results equal CPython's; this file checks what the engine did: an `if` on array data
whose profiling calls took one side runs as that side under an assert (listed by
explain), the assert fails when the branch flips and the call runs in CPython with
nothing committed twice; a `while` on array data unrolls to the profiled trip count;
a trip count that varied while profiling becomes one IR loop with a condition
(compiled once); `for t in range(n)` with n changing on every call compiles once.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import io, json, contextlib
    import numpy as np
    import specula

    class Tracker:
        def __init__(self):
            self.best = 0.5

    def track(state, w, g, x):
        w -= 0.125 * g
        loss = (x * x).mean()
        if loss < state.best:
            state.best = float(loss)
            print("improved")
        return w.sum()

    def newton(a, x):
        while np.abs(x * x - a).max() > 1e-6:
            x = 0.5 * (x + a / x)
        return x

    def bisect(lo, hi, target):
        while (hi - lo).max() > target:
            mid = 0.5 * (lo + hi)
            lo = np.where(mid * mid < 2.0, mid, lo)
            hi = np.where(mid * mid < 2.0, hi, mid)
        return lo

    def rnn(h, xs, n):
        for t in range(n):
            h = np.tanh(xs[t] * 0.5 + h * 0.25)
        return h

    def row(name):
        return [r for r in specula.report() if r["name"] == name][0]

    t = Tracker()
    w = np.ones(4)
    for i in range(12):
        track(t, w, np.ones(4), np.full(3, 1.0))
    before_flip = row("track")
    explain = specula.explain("track")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        track(t, w, np.ones(4), np.full(3, 0.1))
    after_flip = row("track")
    w_after = w.tolist()

    for i in range(12):
        newton(np.array([2.0, 3.0]), np.ones(2))
    newton_before = row("newton")
    x = newton(np.array([2.0, 3000.0]), np.ones(2))
    newton_after = row("newton")

    for i in range(12):
        bisect(np.ones(2), np.full(2, 2.0), 10.0 ** -(1 + i % 5))

    xs = np.linspace(0.0, 1.0, 60).reshape(20, 3)
    for n in range(1, 19):
        rnn(np.zeros(3), xs, n)

    print(json.dumps({"before_flip": before_flip, "explain": explain,
                      "after_flip": after_flip, "printed": out.getvalue(),
                      "w_after": w_after, "newton_before": newton_before,
                      "newton_after": newton_after, "newton_ok": bool(abs(x[1] ** 2 - 3000.0) < 1e-3),
                      "bisect": row("bisect"), "rnn": row("rnn")}))
""")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One `python3 -m specula` run of SCRIPT at the default threshold (profiling calls)."""
    path = tmp_path_factory.mktemp("flow") / "flow_script.py"
    path.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPECULA_")}
    env.update({"SPECULA_COST_CHECK": "off", "OMP_NUM_THREADS": "1",
                "OPENBLAS_NUM_THREADS": "1"})
    proc = subprocess.run([sys.executable, "-m", "specula", str(path)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_one_sided_branch_runs_under_an_assert(runs):
    before = runs["before_flip"]
    assert before["state"] == "compiled", before["reason"]
    assert before["graph_runs"] > 0 and before["assert_failures"] == 0
    assert "took its then side (profiled: only the else side)" in runs["explain"]


def test_flipped_branch_runs_in_cpython_once(runs):
    after = runs["after_flip"]
    assert after["assert_failures"] == 1
    assert after["graph_runs"] == runs["before_flip"]["graph_runs"]
    assert runs["printed"] == "improved\n"
    # 13 updates of w by -0.125 each: the failed graph attempt committed nothing.
    assert runs["w_after"] == [1.0 - 13 * 0.125] * 4


def test_while_on_array_data_unrolls_the_profiled_trip_count(runs):
    before, after = runs["newton_before"], runs["newton_after"]
    assert before["state"] == "compiled", before["reason"]
    assert before["graph_runs"] > 0
    assert after["assert_failures"] == 1 and "trips profiled" in after["reason"]
    assert runs["newton_ok"]


def test_varying_trip_count_compiles_once_as_a_loop(runs):
    bisect = runs["bisect"]
    assert bisect["state"] == "compiled", bisect["reason"]
    assert bisect["compiles"] == 1
    assert bisect["assert_failures"] == 0 and bisect["graph_runs"] > 0


def test_for_over_a_varying_range_compiles_once(runs):
    rnn = runs["rnn"]
    assert rnn["state"] == "compiled", rnn["reason"]
    assert rnn["compiles"] == 1
    assert rnn["guard_misses"] == 0 and rnn["graph_runs"] >= 10
