"""Invariant 4, cheap when cold: when the frame hook is in CPython.

No timing here: the hook's state is read from the engine, and the parking
timer is either pushed out of reach (SPECULA_REARM_MS large) or made fast and
waited for by running code until the state changes."""
import json
import os
import subprocess
import sys
import textwrap

PYTHON = "/usr/bin/python3"


def run(tmp_path, source, **env_extra):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(source))
    env = dict(os.environ)
    env.pop("SPECULA_THRESHOLD", None)
    env.pop("SPECULA_ENGINE", None)
    env.update(env_extra)
    proc = subprocess.run([PYTHON, "-m", "specula", str(script)], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


FIB = """
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
"""


def test_a_program_without_numpy_never_loads_it_nor_installs_the_hook(tmp_path):
    out = run(tmp_path, "import json, sys, specula\n" + FIB + """
fib(15)
print(json.dumps({"state": specula._engine.hook_state(), "numpy": "numpy" in sys.modules,
                  "report": specula.report()}))
""")
    assert out == {"state": "waiting for numpy", "numpy": False, "report": []}


def test_importing_numpy_installs_the_hook_and_hot_code_compiles(tmp_path):
    out = run(tmp_path, """
import json, specula
before = specula._engine.hook_state()
import numpy as np
after = specula._engine.hook_state()
def f(x):
    return x * 2.0 + 1.0
for _ in range(8):
    f(np.ones(4))
print(json.dumps({"before": before, "after": after,
                  "f": [r["state"] for r in specula.report() if r["name"] == "f"]}))
""")
    assert out == {"before": "waiting for numpy", "after": "active", "f": ["compiled"]}


# Both loops below end when the engine reached the state (the timer re-arms
# within a millisecond); a broken engine makes the subprocess time out.
UNTIL_FIB_STAYS_IN_CPYTHON_AND_PARKED = """
states = []
while states != ["not_convertible"]:
    fib(12)
    states = [r["state"] for r in specula.report() if r["name"] == "fib"]
while specula._engine.hook_state() != "parked":
    fib(20)
"""


def test_the_hook_parks_when_only_code_that_stays_in_cpython_runs(tmp_path):
    out = run(tmp_path, "import json, numpy as np, specula\n" + FIB + UNTIL_FIB_STAYS_IN_CPYTHON_AND_PARKED + """
print(json.dumps({"state": specula._engine.hook_state(),
                  "fib": [r["state"] for r in specula.report() if r["name"] == "fib"]}))
""", SPECULA_REARM_MS="1")
    assert out == {"state": "parked", "fib": ["not_convertible"]}


def test_a_parked_hook_comes_back_and_finds_new_hot_code(tmp_path):
    out = run(tmp_path, "import json, numpy as np, specula\n" + FIB + UNTIL_FIB_STAYS_IN_CPYTHON_AND_PARKED + """
parked = specula._engine.hook_state()
def f(x):
    return x * 2.0 + 1.0
# The timer re-installs the hook within a millisecond; f keeps being called
# until it has been counted, profiled and compiled (no wall-clock bound).
rows = []
while not rows:
    f(np.ones(4))
    rows = [r for r in specula.report() if r["name"] == "f" and r["state"] == "compiled"]
print(json.dumps({"parked": parked, "f": rows[0]["state"]}))
""", SPECULA_REARM_MS="1")
    assert out == {"parked": "parked", "f": "compiled"}


def test_threshold_zero_keeps_the_hook_from_the_start_and_never_parks(tmp_path):
    out = run(tmp_path, "import json, specula\n" + FIB + """
first = specula._engine.hook_state()
fib(22)
print(json.dumps({"first": first, "after": specula._engine.hook_state()}))
""", SPECULA_THRESHOLD="0", SPECULA_REARM_MS="1000000")
    assert out == {"first": "active", "after": "active"}
