"""Chunks of `while` loops (engine/while_chunks.hpp): the programs run
through the kernel with the engine off, on at threshold 0 and on at the
default threshold; every reply, output message and the final globals must be
identical, and at threshold 0 the loops meant to chunk must show chunks in
specula.report()."""

import pytest

from while_chunk_programs import PROGRAMS
from test_cell_loops import check_interrupted_loop, kernels  # noqa: F401 (the fixture)
import test_loop_chunks
from test_loop_chunks import _row


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_while_loops_equal_engine_off(kernels, program):
    # (Called through the module: imported by name, pytest would collect it
    # here too, with the range programs.)
    test_loop_chunks.check_equals_engine_off(kernels, program)


def test_report_counts_while_chunks_and_says_why_not(kernels):
    km, kc = kernels["thr0"]
    count = test_loop_chunks.run_counted(
        kc, "import numpy as np\nwz = np.zeros(2)\nwn = 0\nwm = 0\n"
        "def bound():\n    return 120\n",
        "while wn < 200:\n"
        "    wz = wz * 0.5 + 1.0\n"
        "    wn += 1\n"
        "while wm < bound():\n"
        "    wz = wz + 1.0\n"
        "    wm += 1\n")
    counter = _row(kc, count, 2)
    # The first iterations run one by one (profiling, then graph iterations
    # in a row); the rest in chunks, counted as graph runs.
    assert counter["chunks"] > 0 and 0 < counter["chunk_iterations"] < 200, counter
    assert counter["graph_runs"] == 200 and counter["chunk_reason"] is None, counter
    assert counter["chunk_failures"] == 0, counter
    called = _row(kc, count, 5)
    assert called["chunks"] == 0, called
    assert "call in the test of a while loop run in chunks" in called["chunk_reason"], called
    assert f":{5}" in called["chunk_reason"], called  # located at the test's line


def test_interrupt_during_a_while_chunk_commits_whole_iterations(kernels):
    # The test reads a name the body never binds: CPython would loop for
    # ever; the chunks stay interruptible. A whole number of iterations:
    # every name and array as after `steps` of them.
    km, kc = kernels["thr0"]
    check_interrupted_loop(km, kc, "import numpy as np\nia = np.zeros(20000)\nib = np.zeros(20000)\n"
                           "steps = 0\nalive = True",
                           "print('running')\n"
                           "while alive:\n"
                           "    ia += 1.0\n"
                           "    ib = ib + ia * 0.0 + 1.0\n"
                           "    steps += 1\n",
                           "print(steps, ia[0], ib[0])\n"
                           "print(steps > 0, float(ia[0]) == steps, bool((ia == ib).all()))",
                           ran="chunks")


def test_interrupt_during_a_while_chunk_in_a_function_commits_whole_iterations(kernels):
    # Both arrays updated by the same whole number of iterations.
    km, kc = kernels["thr0"]
    check_interrupted_loop(km, kc, "import numpy as np\nfa = np.zeros(20000)\nfb = np.zeros(20000)\n"
                           "alive = True\n"
                           "def spin(a, b):\n"
                           "    steps = 0\n"
                           "    print('running')\n"
                           "    while alive:\n"
                           "        a += 1.0\n"
                           "        b += 1.0\n"
                           "        steps += 1\n"
                           "    return steps\n",
                           "spin(fa, fb)",
                           "print(fa[0] > 0, bool((fa == fb).all()), bool((fa == fa[0]).all()))",
                           ran="chunks", name_prefix="spin")
