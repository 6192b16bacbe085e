"""Runs a program under `python3 -m specula` with the engine on and off and
returns what it printed, so tests compare the two bit for bit."""
import os
import subprocess
import sys
import textwrap

PYTHON = "/usr/bin/python3"


def run_program(tmp_path, source, engine="on", threshold="0", args=()):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(source))
    env = dict(os.environ)
    env["SPECULA_THRESHOLD"] = threshold
    env["SPECULA_ENGINE"] = engine
    proc = subprocess.run([PYTHON, "-m", "specula", str(script), *args], env=env,
                          capture_output=True, text=True, timeout=120)
    return proc


def differential(tmp_path, source, threshold="0"):
    on = run_program(tmp_path, source, "on", threshold)
    off = run_program(tmp_path, source, "off", threshold)
    assert on.returncode == off.returncode, (on.stderr, off.stderr)
    assert on.stdout.split("REPORT")[0] == off.stdout.split("REPORT")[0], (on.stdout, off.stdout)
    return on
