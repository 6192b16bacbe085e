"""What a guard miss leads to.

A function that writes one argument in place, called with arrays that overlap
(programs/aliased_written_arrays.py): the aliasing calls stay in CPython under an
`overlap` guard (a situation, not the region's end), the separate-array calls keep
running as graphs, and the region does not recompile on every alternation.

Two arguments whose shapes change on the same call (programs/shapes_change_together.py,
a short last batch of `xb` and `yb`): every changed source is observed on the miss, so
both dims relax and one symbolic specialisation serves every batch size."""

import os

import harness


def _row(program_name, function, mode):
    """The report row of `function` after `program_name` ran in `mode`
    (cost check off: the graphs are kept whatever they cost)."""
    program = harness.parse_header(os.path.join(harness.PROGRAMS, program_name))
    run = harness.run(program, mode, {"SPECULA_COST_CHECK": "off"})
    assert run.problem is None, run.problem
    assert run.returncode == 0, run.stderr
    rows = harness.report_entries(run, program, function)
    assert len(rows) == 1, rows
    assert rows[0]["state"] == "compiled", (mode, rows[0]["reason"])
    return rows[0]


def test_aliasing_calls_stay_in_cpython_and_the_rest_stays_compiled():
    for mode in ("thr0", "default"):
        row = _row("aliased_written_arrays.py", "heat_step", mode)
        # One specialisation for separate arrays, one CPython situation for
        # aliasing ones (the same array twice and the views share the layout).
        assert row["compiles"] <= 3, (mode, row)
        specs = row["specialisations"]
        aliased = [s for s in specs if s["verdict"] == "not_convertible"]
        graphs = [s for s in specs if s["verdict"] != "not_convertible" and s["graph_runs"] > 0]
        assert len(aliased) == 1 and graphs, (mode, specs)
        assert "overlap" in aliased[0]["situation"], aliased
        assert row["graph_runs"] >= 12, (mode, row)
        assert row["fallbacks"] >= 36, (mode, row)


def test_shapes_that_change_together_relax_together():
    for mode in ("thr0", "default"):
        row = _row("shapes_change_together.py", "batch_loss", mode)
        assert row["compiles"] == 2, (mode, row)
        symbolic = [s for s in row["specialisations"] if "?" in s["situation"]]
        assert len(symbolic) == 1, (mode, row["specialisations"])
        assert "xb is an ndarray float64[?" in symbolic[0]["situation"], symbolic
        assert "yb is an ndarray float64[?" in symbolic[0]["situation"], symbolic
        # The symbolic specialisation is front-most after the miss: it runs
        # the short batches and the full ones after them.
        assert symbolic[0]["graph_runs"] >= 8, (mode, row["specialisations"])
