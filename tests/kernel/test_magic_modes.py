"""%specula exact | fast: the numerics mode switch seen from a notebook."""

import json
import os

import pytest

from kernel_harness import execute, outputs, start_kernel, stdout_text, stop_kernel

SETUP = """import numpy as np, specula
def step32(x, w):
    return (x * w - x).sum()
def step64(x, w):
    return (x * w + 1.0).sum()
x32 = np.linspace(0, 1, 1000, dtype=np.float32)
w32 = np.full(1000, 0.5, dtype=np.float32)
x64 = x32.astype(np.float64)
w64 = w32.astype(np.float64)
# Comprehensions, not a for loop: a cell loop would inline both functions
# into its own graph, and this file is about the functions' own regions.
r32 = [step32(x32, w32) for _ in range(20)][-1]
r64 = [step64(x64, w64) for _ in range(20)][-1]
"""


def report_rows(kc):
    _, messages = execute(kc, "%specula report --json")
    return {row["name"]: row for row in json.loads(stdout_text(messages))}


@pytest.fixture(scope="module")
def kernel():
    km, kc = start_kernel(env=dict(os.environ, SPECULA_THRESHOLD="0", SPECULA_COST_CHECK="off"))
    content, _ = execute(kc, SETUP)
    assert content["status"] == "ok"
    yield km, kc
    stop_kernel(km, kc)


def test_default_mode_is_fast(kernel):
    _, kc = kernel
    _, messages = execute(kc, "print(specula.numerics())")
    assert stdout_text(messages).strip() == "fast"


def test_exact_drops_only_float32_graphs_and_they_recompile(kernel):
    _, kc = kernel
    before = report_rows(kc)
    assert before["step32"]["state"] == "compiled"
    assert before["step64"]["state"] == "compiled"
    _, messages = execute(kc, "%specula exact")
    lines = stdout_text(messages).splitlines()
    assert len(lines) == 1
    assert "fast -> exact" in lines[0]
    # Only the float32 graph depends on the mode.
    assert "1 compiled specialisation(s) dropped" in lines[0]
    _, messages = execute(kc, "print(specula.numerics())")
    assert stdout_text(messages).strip() == "exact"

    content, _ = execute(kc, "a32 = [step32(x32, w32) for _ in range(5)][-1]\n"
                             "a64 = [step64(x64, w64) for _ in range(5)][-1]\n")
    assert content["status"] == "ok"
    after = report_rows(kc)
    # The float64 graph was kept: its runs continue without a recompile
    # (no new guard miss); the float32 one recompiled without a guard miss.
    assert after["step64"]["graph_runs"] == before["step64"]["graph_runs"] + 5
    assert after["step64"]["guard_misses"] == before["step64"]["guard_misses"]
    assert after["step32"]["state"] == "compiled"
    assert after["step32"]["graph_runs"] == before["step32"]["graph_runs"] + 5
    assert after["step32"]["guard_misses"] == before["step32"]["guard_misses"]
    # Same values as CPython computes them.
    # The recompiled graphs give what CPython gives, bit for bit.
    _, messages = execute(kc, "specula.disable()\nb32 = step32(x32, w32); b64 = step64(x64, w64)\n"
                              "specula.enable()\nprint(a32.tobytes() == b32.tobytes(), a64 == b64)")
    assert stdout_text(messages).split() == ["True", "True"]


def test_same_mode_again_says_nothing_changed(kernel):
    _, kc = kernel
    execute(kc, "%specula exact")
    _, messages = execute(kc, "%specula exact")
    lines = stdout_text(messages).splitlines()
    assert len(lines) == 1 and "nothing changed" in lines[0]
    _, messages = execute(kc, "%specula fast")
    assert "exact -> fast" in stdout_text(messages)


def test_bad_mode_from_python_is_a_value_error(kernel):
    _, kc = kernel
    content, _ = execute(kc, "specula.set_numerics('sloppy')")
    assert content["status"] == "error"
    assert content["ename"] == "ValueError"
