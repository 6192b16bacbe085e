"""A SIGINT that arrives while the engine runs its own Python (reading a
function's source to trace its branches or to convert it) is the user's: it
surfaces as one KeyboardInterrupt at the call, never swallowed.

The program below sends a real SIGINT from inside `inspect.getsourcelines`,
which only the engine calls, so the signal lands in the engine's own work at a
known point. Every SIGINT sent must surface exactly once."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from engine_harness import run_program  # noqa: E402

PROGRAM = """
    import inspect, json, os, signal
    import numpy as np
    import specula

    real_getsourcelines = inspect.getsourcelines
    armed = {"who": {WHO}}  # the first read of that function only
    sent = []

    def interrupting(obj):
        # Which engine step reads the source: the branch tracer's begin() and
        # trace() run with this module's frame below them, the converter too;
        # the name of the function read tells them apart well enough here.
        if armed["who"] is not None and getattr(obj, "co_name", None) == armed["who"]:
            armed["who"] = None
            sent.append(obj.co_name)
            os.kill(os.getpid(), signal.SIGINT)  # raises here, as from Jupyter
        return real_getsourcelines(obj)

    inspect.getsourcelines = interrupting

    def helper(x, k):
        if k % 2:
            return x - 1.0
        return x + 1.0

    def f(x, k):
        if k > 0:
            return helper(x * 2.0, k)
        return x

    raised = []
    x = np.ones(3)
    for i in range(12):
        try:
            x = f(x, i)
        except KeyboardInterrupt:
            raised.append(i)
    print(json.dumps({"sent": sent, "raised": raised, "x": x.tolist()}))
    print("REPORT" + json.dumps(specula.report()))
"""


@pytest.mark.parametrize("who", ["f", "helper"])
def test_a_sigint_in_the_engines_source_read_surfaces_once(tmp_path, who):
    # Threshold 2: cold calls, then profiling calls (traced: begin() reads
    # f's source, trace() helper's), then the compile (the converter reads
    # both). The SIGINT lands in the first read of `who`.
    proc = run_program(tmp_path, PROGRAM.replace("{WHO}", repr(who)), threshold="2")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.split("REPORT")[0])
    assert out["sent"] == [who], out
    assert len(out["raised"]) == 1, f"{len(out['sent'])} SIGINT sent, raised at {out['raised']}"
    # The interrupted call left no effect and the later ones ran: x is that of
    # the calls that returned, in CPython's order.
    x = 1.0
    for i in range(12):
        if i in out["raised"]:
            continue
        x = x * 2.0 + (-1.0 if i % 2 else 1.0) if i > 0 else x
    assert out["x"] == [x] * 3, out


def test_without_the_engine_no_source_is_read(tmp_path):
    # The control: engine off, nothing calls inspect, no SIGINT is sent.
    proc = run_program(tmp_path, PROGRAM.replace("{WHO}", "'f'"), engine="off")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.split("REPORT")[0])
    assert out["sent"] == [] and out["raised"] == [], out
