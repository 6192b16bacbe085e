"""Chunks of `for` loops over lists and tuples (engine/loop_sequences.hpp):
the programs run through the kernel with the engine off, on at threshold 0
and on at the default threshold; every reply, output message and the final
globals must be identical, and at threshold 0 the loops meant to chunk must
show chunks in specula.report()."""

import pytest

from sequence_chunk_programs import PROGRAMS
from test_cell_loops import kernels  # noqa: F401 (the fixture)
import test_loop_chunks
from test_loop_chunks import _row


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_sequence_loops_equal_engine_off(kernels, program):
    # (Called through the module: imported by name, pytest would collect it
    # here too, with the range programs.)
    test_loop_chunks.check_equals_engine_off(kernels, program)


def test_report_counts_list_chunks_and_says_why_not(kernels):
    km, kc = kernels["thr0"]
    count = test_loop_chunks.run_counted(
        kc, "import numpy as np\ndz = np.zeros(2)\nitems = [float(i) for i in range(200)]\n"
        "words = ['a'] * 40",
        "for di in items:\n"
        "    dz = dz + di\n"
        "for dw in words:\n"
        "    dz = dz + 1.0\n"
        "for dj in iter(items):\n"
        "    dz = dz + 1.0\n")
    floats = _row(kc, count, 2)
    assert floats["chunks"] > 0 and 0 < floats["chunk_iterations"] < 200, floats
    assert floats["graph_runs"] == 200 and floats["chunk_reason"] is None, floats
    strings = _row(kc, count, 4)
    assert strings["chunks"] == 0 and "neither a Python float" in strings["chunk_reason"], strings
    iterator = _row(kc, count, 6)
    assert iterator["chunks"] == 0 and "not a range, list, tuple" in iterator["chunk_reason"], iterator


def test_report_counts_enumerate_zip_and_rows_chunks_and_says_why_not(kernels):
    km, kc = kernels["thr0"]
    count = test_loop_chunks.run_counted(
        kc, "import numpy as np\nez = np.zeros(3)\nitems = [float(i) for i in range(200)]\n"
        "rows = np.ones((200, 3))",
        "for ei, ex in enumerate(items):\n"
        "    ez = ez + ex * ei\n"
        "for ex, ek in zip(items, range(150)):\n"
        "    ez = ez + ex - ek\n"
        "for er in rows:\n"
        "    ez = ez * 0.5 + er\n"
        "for eg in (x * 2.0 for x in items):\n"
        "    ez = ez + eg\n"
        "for ea, eb in zip(items, items, strict=True):\n"
        "    ez = ez + ea\n"
        "for ev in rows[:, 0]:\n"
        "    ez = ez + ev\n")
    for line, trips in ((2, 200), (4, 150), (6, 200)):
        row = _row(kc, count, line)
        assert row["chunks"] > 0 and 0 < row["chunk_iterations"] < trips, row
        assert row["graph_runs"] == trips and row["chunk_reason"] is None, row
    generator = _row(kc, count, 8)
    assert generator["chunks"] == 0 and "iterates over a generator" in generator["chunk_reason"], generator
    strict = _row(kc, count, 10)
    assert strict["chunks"] == 0 and "strict=True" in strict["chunk_reason"], strict
    scalars = _row(kc, count, 12)
    assert scalars["chunks"] == 0 and "1-d array" in scalars["chunk_reason"], scalars

