"""The %specula magic in the kernel: the report as a table and as JSON."""

import json

import pytest

from kernel_harness import execute, outputs, start_kernel, stdout_text, stop_kernel

HOT = """import numpy as np
def step(x, w):
    return np.maximum(x * w + 1.0, 0.0).sum()
x = np.ones(1000)
w = np.full(1000, 0.5)
results = [step(x, w) for _ in range(20)]
"""


@pytest.fixture(scope="module")
def kernel():
    km, kc = start_kernel()
    content, _ = execute(kc, HOT)
    assert content["status"] == "ok"
    yield km, kc
    stop_kernel(km, kc)


def test_report_json_is_exactly_the_module_report(kernel):
    _, kc = kernel
    _, magic = execute(kc, "%specula report --json")
    _, direct = execute(kc, "import json, specula\nprint(json.dumps(specula.report()))")
    assert stdout_text(magic) == stdout_text(direct)
    rows = json.loads(stdout_text(magic))
    names = [r["name"] for r in rows]
    assert "step" in names
    row = rows[names.index("step")]
    assert set(row) >= {"name", "file", "line", "kind", "state", "graph_runs", "fallbacks",
                        "guard_misses", "assert_failures", "reason"}
    assert row["kind"] == "function"


def test_report_table_names_cells_by_execution_count(kernel):
    _, kc = kernel
    _, messages = execute(kc, "%specula report")
    table = stdout_text(messages)
    header = table.splitlines()[0]
    assert header.split()[:4] == ["region", "where", "kind", "state"]
    step_line = next(line for line in table.splitlines() if line.startswith("step "))
    assert "In [1], line 2" in step_line


def test_off_and_on(kernel):
    _, kc = kernel
    content, _ = execute(kc, "%specula off")
    assert content["status"] == "ok"
    content, messages = execute(kc, "results = [step(x, w) for _ in range(5)]\nresults[-1]")
    assert outputs(messages, "execute_result")[0]["data"]["text/plain"] == "1500.0"
    content, _ = execute(kc, "%specula on")
    assert content["status"] == "ok"


@pytest.mark.parametrize("line", ["%specula", "%specula frobnicate", "%specula report --xml"])
def test_bad_usage_is_a_usage_error(kernel, line):
    _, kc = kernel
    content, messages = execute(kc, line)
    assert content["status"] == "error"
    assert content["ename"] == "UsageError"
    assert "usage: %specula" in "".join(
        s["text"] for s in outputs(messages, "stream") if s["name"] == "stderr")


def test_a_parked_hook_comes_back_at_the_next_cell():
    # The timer is pushed out of reach: only the cell start can re-install
    # the hook once pure-Python code that stays in CPython parked it.
    import os
    km, kc = start_kernel(env=dict(os.environ, SPECULA_REARM_MS="100000000"))
    try:
        content, _ = execute(kc, "import numpy as np, specula\n"
                                 "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
                                 "while specula._engine.hook_state() != 'parked':\n    fib(20)\n")
        assert content["status"] == "ok"
        _, messages = execute(kc, "state = specula._engine.hook_state()\n"
                                  "def g(x):\n    return x * 2.0 + 1.0\n"
                                  "for _ in range(8):\n    g(np.ones(3))\n"
                                  "print(state, [r['state'] for r in specula.report() if r['name'] == 'g'])")
        assert stdout_text(messages).strip() == "active ['compiled']"
    finally:
        stop_kernel(km, kc)
