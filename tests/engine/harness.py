"""Differential harness: every program runs with the engine off and on; all must agree.

Each program runs in a fresh subprocess, three ways (see MODES):
  off      SPECULA_ENGINE=off python3 -m specula prog.py
  thr0     SPECULA_THRESHOLD=0 python3 -m specula prog.py   (compile as early as possible)
  default  python3 -m specula prog.py                      (the engine's own threshold)
The engine runs in `exact` numerics (SPECULA_NUMERICS=exact): every result must be NumPy's
bytes. `fast` mode, where float32 may take oneDNN within a documented tolerance, has its
own suite (test_onednn_fast.py), so a float32 program that grows past the oneDNN
crossovers cannot make this suite compare tolerance-bound bytes.
Through programs/_probe.py a run records the values the program snapshots, the
return value or exception (type, message, traceback frames) of each call made
through `call()`, the program's globals at exit and `specula.report()`. The harness
compares exit status, stdout, stderr, events and globals exactly between the runs;
the report is used only for the must-fall-back assertions and the coverage table.
"""

import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
MODES = {
    "off": {"SPECULA_ENGINE": "off"},
    "thr0": {"SPECULA_THRESHOLD": "0", "SPECULA_NUMERICS": "exact"},
    "default": {"SPECULA_NUMERICS": "exact"},
}
WORKERS = 2            # the CI budget is two cores
RUN_TIMEOUT = 120      # seconds; a hang guard, not a performance check
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
REPORT_KEYS = ("name", "file", "line", "kind", "state", "graph_runs", "fallbacks",
               "guard_misses", "assert_failures", "reason")


@dataclass
class Program:
    path: str
    name: str
    expect_compiled: list = field(default_factory=list)
    must_not_convert: list = field(default_factory=list)  # (function, may_be_absent)
    expect_exit: int = 0


@dataclass
class Run:
    mode: str
    returncode: int
    stdout: str
    stderr: str
    record: dict = None
    problem: str = None  # why the run could not be compared at all


def programs(subdir=""):
    """The programs of one suite, with the expectations in their header comments."""
    folder = os.path.join(PROGRAMS, subdir)
    found = []
    for entry in sorted(os.listdir(folder)):
        if entry.endswith(".py") and not entry.startswith("_"):
            found.append(parse_header(os.path.join(folder, entry)))
    return found


def parse_header(path):
    """Reads `# expect: compiled f, g`, `# must-not-convert: f, gen (untouched)`,
    `# expect-exit: N` from the program's leading comments."""
    name = os.path.relpath(path, PROGRAMS)
    program = Program(path=path, name=name)
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            key, _, value = line[1:].partition(":")
            key = key.strip()
            if key == "expect":
                words = value.split()
                assert words and words[0] == "compiled", f"{name}: bad expect header"
                program.expect_compiled += _names(" ".join(words[1:]))
            elif key == "must-not-convert":
                for item in _names(value):
                    program.must_not_convert.append(
                        (item.split()[0], "(untouched)" in item))
            elif key == "expect-exit":
                program.expect_exit = int(value)
    return program


def _names(text):
    return [n.strip() for n in text.split(",") if n.strip()]


def python_path():
    """PYTHONPATH for a program: the build tree's `specula` first, then _probe."""
    inherited = os.environ.get("PYTHONPATH", "")
    return os.pathsep.join(p for p in (inherited, PROGRAMS) if p)


def run(program, mode, extra_env=None):
    """One fresh `python3 -m specula` process for `program` in `mode`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPECULA_")}
    env.update(MODES[mode])
    env.update(extra_env or {})
    env.update({"PYTHONPATH": python_path(), "PYTHONHASHSEED": "0",
                "PYTHONDONTWRITEBYTECODE": "1", "PYTHONFAULTHANDLER": "1", "OMP_NUM_THREADS": "1",
                "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "LC_ALL": "C.UTF-8",
                "PYTHONIOENCODING": "utf-8", "COLUMNS": "80"})
    with tempfile.TemporaryDirectory(prefix="specula-engine-") as cwd:
        out = os.path.join(cwd, "record.json")
        env["SPECULA_PROBE_OUT"] = out
        try:
            proc = subprocess.run([sys.executable, "-m", "specula", program.path],
                                  cwd=cwd, env=env, capture_output=True, text=True,
                                  timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            return Run(mode, None, "", "", problem=f"no exit within {RUN_TIMEOUT}s (hang?)")
        result = Run(mode, proc.returncode, strip(proc.stdout), strip(proc.stderr))
        if "No module named specula" in proc.stderr:
            result.problem = ("`python3 -m specula` failed: the specula module is not "
                              f"importable from PYTHONPATH={env['PYTHONPATH']!r}")
        elif os.path.exists(out):
            with open(out) as f:
                result.record = json.load(f)
        else:
            result.problem = (f"no record written (exit status {proc.returncode}); "
                              f"stderr ends:\n{tail(proc.stderr)}")
        return result


def run_all(progs, modes=tuple(MODES)):
    """{program name: {mode: Run}}, running WORKERS processes at a time."""
    results = {p.name: {} for p in progs}
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        jobs = {pool.submit(run, p, m): (p.name, m) for p in progs for m in modes}
        for job in concurrent.futures.as_completed(jobs):
            name, mode = jobs[job]
            results[name][mode] = job.result()
    return results


def strip(text):
    return _ADDRESS.sub("0x?", text)


def tail(text, lines=15):
    return "\n".join(text.splitlines()[-lines:])


def check_runs(program, runs):
    """Every way the runs of one program disagree; [] when they agree exactly."""
    problems = [f"[{r.mode}] {r.problem}" for r in runs.values() if r.problem]
    if problems:
        return problems
    base = runs["off"]
    problems += oracle_problems(base)
    if base.returncode != program.expect_exit:
        problems.append(f"[off] exit status {base.returncode}, expected {program.expect_exit}"
                        f" (a broken program, not an engine bug); stderr:\n{tail(base.stderr)}")
    for mode, other in runs.items():
        if mode == "off":
            continue
        for what, a, b in (("exit status", base.returncode, other.returncode),
                           ("stdout", base.stdout, other.stdout),
                           ("stderr", base.stderr, other.stderr),
                           ("events", base.record["events"], other.record["events"]),
                           ("globals at exit", base.record["globals"], other.record["globals"])):
            diff = first_difference(a, b, what)
            if diff:
                problems.append(f"[off vs {mode}] {diff}")
    return problems


def oracle_problems(off_run):
    """The engine-off run is the oracle: no region of it may have run as a graph."""
    report = (off_run.record or {}).get("report")
    ran = [e for e in report if isinstance(e, dict) and (e.get("graph_runs") or 0) > 0] \
        if isinstance(report, list) else []
    return [f"[off] SPECULA_ENGINE=off, yet {e.get('name')} ran {e.get('graph_runs')} graphs"
            for e in ran]


def first_difference(a, b, path):
    """A readable description of where two recorded values first differ, or None."""
    if isinstance(a, str) and isinstance(b, str) and "\n" in a + b:
        return _text_difference(a, b, path)
    if type(a) is not type(b):
        return f"{path}: {_short(a)} != {_short(b)}"
    if isinstance(a, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"{path}.{key}: present only in {'off' if key in a else 'engine-on'} run"
            diff = first_difference(a[key], b[key], f"{path}.{key}")
            if diff:
                return diff
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            diff = first_difference(x, y, f"{path}[{i}]")
            if diff:
                return diff
        if len(a) != len(b):
            return f"{path}: length {len(a)} (off) != {len(b)} (engine on)"
        return None
    return None if a == b else f"{path}: {_short(a)} (off) != {_short(b)} (engine on)"


def _text_difference(a, b, path):
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"{path} line {i + 1}:\n  off: {x!r}\n  on:  {y!r}"
    if len(la) != len(lb):
        extra = (la if len(la) > len(lb) else lb)[min(len(la), len(lb)):]
        who = "off" if len(la) > len(lb) else "engine-on"
        return f"{path}: only the {who} run has the lines {_short(extra)}"
    return None if a == b else f"{path}: differs in whitespace: {a!r} != {b!r}"


def _short(value, limit=300):
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def report_entries(run_, program, function=None):
    """The report's entries for regions in this program (optionally one function)."""
    report = (run_.record or {}).get("report")
    if not isinstance(report, list):
        return []
    base = os.path.basename(program.path)
    return [e for e in report if isinstance(e, dict)
            and os.path.basename(str(e.get("file", ""))) == base
            and (function is None or e.get("name") == function
                 or str(e.get("name", "")).endswith("." + function))]


def importable_problem():
    """None if `import specula` works with the current PYTHONPATH, else why not."""
    env = dict(os.environ, PYTHONPATH=python_path())
    proc = subprocess.run([sys.executable, "-c",
                           "import specula; assert callable(specula.report)"],
                          env=env, capture_output=True, text=True, timeout=60)
    if proc.returncode == 0:
        return None
    return (f"`import specula` fails with PYTHONPATH={env['PYTHONPATH']!r} — the engine's "
            f"module is not in the build tree yet, or is broken:\n{tail(proc.stderr)}")


def run_suite(suite, progs, modes=tuple(MODES)):
    """Runs a suite's programs and writes its part of the coverage table."""
    import coverage_table
    results = run_all(progs, modes)
    rows, broken = [], []
    for p in progs:
        if any(r.problem for r in results[p.name].values()):
            broken.append(p.name)
        rows += coverage_table.rows(p, results[p.name])
    coverage_table.write(suite, rows, broken)
    return results


STATES = ("cold", "profiling", "compiled", "not_convertible", "blacklisted")


def report_schema_problems(run_):
    """How a run's specula.report() breaks the documented interface, if it does."""
    report = (run_.record or {}).get("report")
    if not isinstance(report, list):
        return [f"[{run_.mode}] specula.report() did not return a list: {_short(report)}"]
    problems = []
    for entry in report:
        if not isinstance(entry, dict):
            problems.append(f"[{run_.mode}] report entry is not a dict: {_short(entry)}")
            continue
        missing = [k for k in REPORT_KEYS if k not in entry]
        if missing:
            problems.append(f"[{run_.mode}] report entry lacks {missing}: {_short(entry)}")
        if entry.get("state") not in STATES:
            problems.append(f"[{run_.mode}] unknown state {entry.get('state')!r}")
        if entry.get("kind") not in ("function", "loop", "cell"):
            problems.append(f"[{run_.mode}] unknown kind {entry.get('kind')!r}")
        for k in ("graph_runs", "fallbacks", "guard_misses", "assert_failures"):
            if k in entry and not (isinstance(entry[k], int) and entry[k] >= 0):
                problems.append(f"[{run_.mode}] {k} is not a count: {entry[k]!r}")
        if entry.get("reason") is not None and not isinstance(entry.get("reason"), str):
            problems.append(f"[{run_.mode}] reason is neither str nor None")
    return problems


def fall_back_problems(program, runs):
    """Hard expectations of `# must-not-convert:` functions.

    The function must never run as a graph and never end `compiled`; at threshold 0
    it must be reported (unless marked `(untouched)`: generator and coroutine
    frames may be handed to CPython without ever becoming a region) with a
    non-empty reason.
    """
    problems = []
    for mode in ("thr0", "default"):
        run_ = runs.get(mode)
        if run_ is None or run_.record is None:
            continue
        for function, may_be_absent in program.must_not_convert:
            entries = report_entries(run_, program, function)
            if not entries and mode == "thr0" and not may_be_absent:
                problems.append(f"[{mode}] {function} is not in specula.report() although "
                                "it was called 20+ times at threshold 0; it must be "
                                "reported as staying in CPython, with its reason")
            for e in entries:
                if e.get("state") == "compiled" or (e.get("graph_runs") or 0) > 0:
                    problems.append(f"[{mode}] {function} must stay in CPython but is "
                                    f"{e.get('state')} with {e.get('graph_runs')} graph runs")
                if not (isinstance(e.get("reason"), str) and e["reason"].strip()):
                    problems.append(f"[{mode}] {function} is {e.get('state')} without a "
                                    f"reason: {_short(e)}")
    return problems
