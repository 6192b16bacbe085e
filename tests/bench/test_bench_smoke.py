"""bench/run --quick completes, every check passes everywhere, and the page is written."""
import json
import os
import subprocess
import sys

import pytest

SOURCE = os.environ.get("SPECULA_SOURCE_DIR",
                        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BENCH = os.path.join(SOURCE, "bench")
OUT = os.environ.get("SPECULA_BENCH_OUTPUT_DIR", os.path.join(BENCH, ".smoke"))
sys.path.insert(0, BENCH)

from harness import notebooks, registry  # noqa: E402

KERNELS = ("ipykernel", "specula-off", "specula-on")


def test_notebooks_match_their_workload_sources():
    assert notebooks.stale() == [], "run bench/make_notebooks"


@pytest.mark.parametrize("workload", registry.WORKLOADS, ids=lambda w: w.id)
def test_workload_runs_as_a_plain_script(workload):
    done = subprocess.run([sys.executable, workload.path, "--quick"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def quick_run():
    results = os.path.join(OUT, "RESULTS.md")
    committed = os.path.join(BENCH, "RESULTS.md")
    before = os.stat(committed).st_mtime_ns if os.path.exists(committed) else None
    done = subprocess.run([sys.executable, os.path.join(BENCH, "run"), "--quick",
                           "--results", results], capture_output=True, text=True, timeout=540)
    after = os.stat(committed).st_mtime_ns if os.path.exists(committed) else None
    with open(os.path.join(OUT, "run.log"), "w") as f:
        f.write(done.stdout + "\n" + done.stderr)
    return done, results, before == after


def test_quick_run_completes(quick_run):
    done, _, _ = quick_run
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_every_check_passes_in_every_kernel_and_peer(quick_run):
    _, results, _ = quick_run
    with open(os.path.splitext(results)[0] + ".json") as f:
        checks = json.load(f)["checks"]
    assert sorted(checks) == sorted(w.id for w in registry.WORKLOADS)
    for workload in registry.WORKLOADS:
        status = checks[workload.id]
        for kernel in KERNELS:
            assert status[kernel] == "passed", (workload.id, kernel, status[kernel])
        for peer in workload.peers:
            assert status[peer] in ("passed", "not installed"), (workload.id, peer, status[peer])


def test_results_page_is_written_elsewhere(quick_run):
    _, results, committed_untouched = quick_run
    with open(results) as f:
        page = f.read()
    assert "## Speedup over ipykernel" in page
    for workload in registry.WORKLOADS:
        assert f"| {workload.id}" in page
    assert committed_untouched


def test_function_level_benchmark_runs_and_engine_on_equals_off(quick_run):
    _, results, _ = quick_run
    with open(results) as f:
        page = f.read()
    assert "## Function-level benchmark (engine on ÷ engine off)" in page
    with open(os.path.splitext(results)[0] + ".json") as f:
        functions = json.load(f)["functions"]
    assert sorted(r["workload"] for r in functions) == ["mlp", "pure", "rnn"]
    for r in functions:
        # Same calls in both processes: the final parameters and outputs agree bit for bit.
        assert r["identical"], r
        assert r["median_on_s"] > 0 and r["median_off_s"] > 0
    # The never-compiled workload really never compiles.
    pure = next(r for r in functions if r["workload"] == "pure")
    assert {g["name"] for g in pure["regions"]} == {"fib", "tokens", "count"}
    assert all(g["state"] != "compiled" and g["graph_runs"] == 0 for g in pure["regions"]), pure["regions"]
