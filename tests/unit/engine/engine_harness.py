"""Runs a program under `python3 -m specula` with the engine on and off and
returns what it printed, so tests compare the two bit for bit.

The cost check is off unless a test asks for it: its CPython samples depend on
how long a graph call takes, so on a loaded machine they would move the graph
run counts the tests assert (engine/README.md, "Cost check")."""
import os
import subprocess
import sys
import textwrap

PYTHON = "/usr/bin/python3"


def run_program(tmp_path, source, engine="on", threshold="0", args=(), cost_check=None):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(source))
    env = dict(os.environ)
    env["SPECULA_THRESHOLD"] = threshold
    env["SPECULA_ENGINE"] = engine
    env["SPECULA_COST_CHECK"] = cost_check or os.environ.get("SPECULA_COST_CHECK", "off")
    proc = subprocess.run([PYTHON, "-m", "specula", str(script), *args], env=env,
                          capture_output=True, text=True, timeout=120)
    return proc


def differential(tmp_path, source, threshold="0", cost_check=None):
    on = run_program(tmp_path, source, "on", threshold, cost_check=cost_check)
    off = run_program(tmp_path, source, "off", threshold, cost_check=cost_check)
    assert on.returncode == off.returncode, (on.stderr, off.stderr)
    assert on.stdout.split("REPORT")[0] == off.stdout.split("REPORT")[0], (on.stdout, off.stdout)
    return on
