"""The `specula` module's contracts: enable/disable/report, the environment,
and `python3 -m specula script.py`."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from engine_harness import run_program  # noqa: E402

REPORT_KEYS = {"name", "file", "line", "kind", "state", "graph_runs", "fallbacks",
               "guard_misses", "assert_failures", "reason"}


def test_module_api_exists():
    import specula
    assert callable(specula.enable) and callable(specula.disable) and callable(specula.report)
    assert isinstance(specula.report(), list)


def test_report_fields_after_compile(tmp_path):
    proc = run_program(tmp_path, """
        import json, numpy as np, specula
        def f(x):
            return x * 2.0 + 1.0
        for _ in range(3):
            f(np.ones(4))
        print(json.dumps(specula.report()))
    """)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    row = [r for r in rows if r["name"] == "f"][0]
    assert set(row) >= REPORT_KEYS
    assert row["kind"] == "function" and row["state"] == "compiled"
    assert row["graph_runs"] == 3 and row["reason"] is None
    assert row["file"].endswith("prog.py") and row["line"] == 3


def test_engine_off_compiles_nothing(tmp_path):
    proc = run_program(tmp_path, """
        import json, numpy as np, specula
        def f(x):
            return x + 1.0
        for _ in range(5):
            f(np.ones(4))
        print(json.dumps(specula.report()))
    """, engine="off")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


def test_default_threshold_profiles_before_compiling(tmp_path):
    proc = run_program(tmp_path, """
        import json, numpy as np, specula
        def f(x):
            return x + 1.0
        for _ in range(2):
            f(np.ones(4))
        a = json.dumps(specula.report())
        for _ in range(6):
            f(np.ones(4))
        print(a)
        print(json.dumps(specula.report()))
    """, threshold="2")
    first, second = [json.loads(line) for line in proc.stdout.splitlines()]
    assert first == []
    row = second[0]
    assert row["state"] == "compiled" and row["graph_runs"] == 4  # 2 cold, 2 profiled, the 3rd compiles and runs


def test_main_runs_script_like_python(tmp_path):
    proc = run_program(tmp_path, """
        import sys
        print(__name__, sys.argv[1:])
        raise SystemExit(3)
    """, args=("a", "b"))
    assert proc.stdout == "__main__ ['a', 'b']\n"
    assert proc.returncode == 3


def test_main_propagates_exceptions(tmp_path):
    proc = run_program(tmp_path, "raise ValueError('boom')\n")
    assert proc.returncode == 1
    assert "ValueError: boom" in proc.stderr


def test_disable_stops_compiling(tmp_path):
    proc = run_program(tmp_path, """
        import json, numpy as np, specula
        specula.disable()
        def f(x):
            return x + 1.0
        for _ in range(5):
            f(np.ones(4))
        print(json.dumps(specula.report()))
    """)
    assert json.loads(proc.stdout) == []
