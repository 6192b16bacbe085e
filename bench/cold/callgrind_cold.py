#!/usr/bin/python3
"""The engine's cost on code it never compiles, in instructions (callgrind:
deterministic, unlike wall-clock time on a shared machine).

Usage: bench/cold/callgrind_cold.py [--python-path build/python]

Prints, for a recursive fib with and without NumPy imported, the instructions
per Python call with the engine off, with a do-nothing PEP 523 hook, and with
Specula's engine on; and the start-up cost of the engine for a script that
never uses NumPy and for one that imports it. Needs valgrind (Debian package;
a measurement tool, not a dependency of Specula).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

FIB = """{prelude}
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
fib({n})
"""


def fib_calls(n):
    a, b = 1, 1  # calls of fib(0), fib(1)
    for _ in range(n - 1):
        a, b = b, a + b + 1
    return b if n > 0 else 1


def instructions(argv, env):
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + os.path.join(tmp, "out")]
                              + argv, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr[-2000:])
        return int(re.search(r"Collected : (\d+)", proc.stderr).group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python-path", default=os.path.join(os.getcwd(), "build", "python"))
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=args.python_path, OPENBLAS_NUM_THREADS="1")
    env.pop("SPECULA_THRESHOLD", None)
    python = "/usr/bin/python3"
    hook_dir = tempfile.mkdtemp()
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-I/usr/include/python3.11",
                    os.path.join(HERE, "passthrough_hook.c"), "-o", os.path.join(hook_dir, "passthrough_hook.so")],
                   check=True)
    variants = {
        "engine off": ([python, "-m", "specula"], {"SPECULA_ENGINE": "off"}),
        "pass-through hook": ([python, "-c", "import sys, passthrough_hook, runpy; passthrough_hook.install(); "
                               "runpy.run_path(sys.argv[1], run_name='__main__')"],
                              {"PYTHONPATH": hook_dir + ":" + args.python_path}),
        # Under valgrind the program runs ~50x slower: the re-arm period is
        # scaled so that the hook samples as often per instruction as natively.
        "engine on": ([python, "-m", "specula"], {"SPECULA_REARM_MS": "2500"}),
    }
    small, large = 18, 24
    print("instructions per fib call (fib(%d) minus fib(%d), %d calls)" % (large, small,
                                                                         fib_calls(large) - fib_calls(small)))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for prelude in ("", "import numpy"):
            for label, (argv, extra) in variants.items():
                counts = []
                for n in (small, large):
                    script = os.path.join(tmp, "fib_%d.py" % n)
                    with open(script, "w") as f:
                        f.write(FIB.format(prelude=prelude, n=n))
                    counts.append(instructions(argv + [script], dict(env, **extra)))
                per_call = (counts[1] - counts[0]) / (fib_calls(large) - fib_calls(small))
                rows.append((prelude or "(no NumPy)", label, per_call, counts[0]))
                print("  %-14s %-18s %7.1f instr/call   (whole fib(%d) run: %.1f M)" % (
                    prelude or "(no NumPy)", label, per_call, small, counts[0] / 1e6), flush=True)
        print("start-up (an empty script)")
        for prelude in ("", "import numpy"):
            script = os.path.join(tmp, "empty.py")
            with open(script, "w") as f:
                f.write(prelude + "\n")
            off = instructions([python, "-m", "specula", script], dict(env, SPECULA_ENGINE="off"))
            on = instructions([python, "-m", "specula", script], env)
            print("  %-14s engine off %.1f M, engine on %.1f M: +%.1f M" % (
                prelude or "(no NumPy)", off / 1e6, on / 1e6, (on - off) / 1e6), flush=True)


if __name__ == "__main__":
    sys.exit(main())
