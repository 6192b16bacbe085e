"""%specula explain, %specula graph and %specula reset through the kernel.

Outputs are checked against the engine's own data (the report, the DOT text,
the guards the engine dumps when the same code runs as a script), never
against texts written here."""

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from kernel_harness import execute, outputs, start_kernel, stdout_text, stop_kernel

CODE = """import numpy as np
def g(x, w):
    y = np.tanh(x @ w)
    s = y.sum()
    if s > 1e9:
        raise ValueError("diverged")
    return y * 2.0
def h(x):
    return [v for v in x]
x = np.ones((4, 8))
w = np.full((8, 3), 0.1)
for _ in range(6):
    g(x, w)
    h(x)
"""

ENV = dict(os.environ, SPECULA_THRESHOLD="0", SPECULA_COST_CHECK="off")


def stderr_text(messages):
    return "".join(c["text"] for c in outputs(messages, "stream") if c["name"] == "stderr")


def report_rows(kc):
    _, messages = execute(kc, "%specula report --json")
    return {row["name"]: row for row in json.loads(stdout_text(messages))}


def dumped_guard_kinds(tmp_path):
    """The guard kinds the engine builds for `g` when the same code runs as a script."""
    script = tmp_path / "same_code.py"
    script.write_text(CODE)
    proc = subprocess.run([sys.executable, "-m", "specula", str(script)], capture_output=True, text=True,
                          env=dict(ENV, SPECULA_DUMP="guards"), timeout=120)
    assert proc.returncode == 0, proc.stderr
    section = proc.stderr.split("specula: guards of g\n", 1)[1]
    kinds = set()
    for line in section.splitlines():
        if not line.startswith("  guard "):
            break
        kinds.add(line.split()[1])
    assert kinds
    return kinds


@pytest.fixture(scope="module")
def kernel():
    km, kc = start_kernel(env=ENV)
    content, _ = execute(kc, CODE)
    assert content["status"] == "ok"
    yield km, kc
    stop_kernel(km, kc)


def test_explain_names_the_guard_kinds_and_counters(kernel, tmp_path):
    _, kc = kernel
    rows = report_rows(kc)
    assert rows["g"]["state"] == "compiled"
    content, messages = execute(kc, "%specula explain g")
    assert content["status"] == "ok"
    text = stdout_text(messages)
    assert text.startswith("g (function at In [1], line 2)")
    explained = set(re.findall(r"^\s+guard (\w+):", text, re.M))
    assert explained == dumped_guard_kinds(tmp_path)
    runs = int(re.search(r"counters: (\d+) graph run", text).group(1))
    assert runs == rows["g"]["graph_runs"]
    # The raise became an assert, located in the cell.
    assert re.search(r"assert 0: raise at In \[1\], line 6", text)


def test_explain_by_cell_location_is_the_same(kernel):
    _, kc = kernel
    _, by_name = execute(kc, "%specula explain g")
    _, by_place = execute(kc, "%specula explain In [1], line 4")
    _, quoted = execute(kc, '%specula explain "In [1], line 2"')
    assert stdout_text(by_place) == stdout_text(by_name)
    assert stdout_text(quoted) == stdout_text(by_name)


def test_explain_of_a_function_that_stays_in_cpython_gives_the_reports_reason(kernel):
    _, kc = kernel
    rows = report_rows(kc)
    assert rows["h"]["state"] == "not_convertible"
    _, messages = execute(kc, "%specula explain h")
    reason = rows["h"]["reason"]
    _, mapped = execute(kc, "import specula; print(specula.report()[[r['name'] for r in specula.report()].index('h')]['reason'])")
    # The report's reason, with the cell file written as a cell location.
    assert "stays in CPython" in stdout_text(messages)
    assert reason.split(" at ")[0] in stdout_text(messages)
    assert "In [1], line 9" in stdout_text(messages)
    assert stdout_text(mapped).strip() == reason


def test_explain_of_an_unknown_function_says_so(kernel):
    _, kc = kernel
    content, messages = execute(kc, "%specula explain no_such_function")
    assert content["status"] == "ok"
    assert "no function named 'no_such_function'" in stderr_text(messages)


def svg_texts(svg):
    root = ET.fromstring(svg)
    return [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.text]


def test_graph_is_an_svg_of_the_dot_graph(kernel):
    _, kc = kernel
    _, messages = execute(kc, "import specula\nprint(specula.graph_dot('g'))")
    dot = stdout_text(messages)
    labels = re.findall(r'label="([^"\\]+)', dot)
    mnemonics = {label for label in labels if not label.startswith("specula graph")}
    assert "assert" in mnemonics and "tanh" in mnemonics
    content, messages = execute(kc, "%specula graph g")
    assert content["status"] == "ok"
    shown = outputs(messages, "display_data")
    assert len(shown) == 1
    svg = shown[0]["data"]["image/svg+xml"]
    texts = svg_texts(svg)
    for mnemonic in mnemonics:
        assert mnemonic in texts, mnemonic
    # The assert is drawn in red, as ir/dot.cpp asks.
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    red = [t.text for t in root.iter(ns + "text") if t.get("fill") == "red"]
    assert "assert" in red


def test_graph_of_a_function_without_graph_says_why(kernel):
    _, kc = kernel
    content, messages = execute(kc, "%specula graph h")
    assert content["status"] == "ok"
    assert outputs(messages, "display_data") == []
    assert "h has no compiled graph" in stderr_text(messages)


def test_graph_without_dot_says_so(kernel):
    _, kc = kernel
    # PATH without Graphviz: the magic must explain instead of failing.
    content, messages = execute(kc, "import os\nsaved = os.environ['PATH']\nos.environ['PATH'] = '/nonexistent'\n"
                                    "try:\n    get_ipython().run_line_magic('specula', 'graph g')\n"
                                    "finally:\n    os.environ['PATH'] = saved")
    assert content["status"] == "ok"
    assert outputs(messages, "display_data") == []
    assert "dot" in stderr_text(messages) and "graphviz" in stderr_text(messages)


def test_reset_forgets_everything_and_functions_start_cold(kernel):
    _, kc = kernel
    content, messages = execute(kc, "%specula reset")
    assert content["status"] == "ok"
    assert "reset" in stdout_text(messages)
    assert report_rows(kc) == {}
    _, messages = execute(kc, "%specula explain g")
    assert "no function named 'g'" not in stderr_text(messages)
    assert re.search(r"counters: 0 graph run", stdout_text(messages))
    # Hot again: profiled, compiled, run as a graph, with the same results.
    _, messages = execute(kc, "r = [g(x, w) for _ in range(4)]\nprint(all((a == r[0]).all() for a in r))")
    assert stdout_text(messages).strip() == "True"
    rows = report_rows(kc)
    assert rows["g"]["state"] == "compiled"
    assert 0 < rows["g"]["graph_runs"] <= 4
    assert "h" not in rows
