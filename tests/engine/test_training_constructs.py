"""Recurrent-network training constructs that must run as graphs, beyond the equal
results the differential programs prove: np.add.at (an embedding's gradient,
programs/scatter_add_at.py), np.empty_like filled one row per time step and a gather
through a transposed index feeding a matrix product (programs/empty_like_rows.py).
Each expected function is compiled and ran its calls as graphs at the default
threshold; the out-of-range np.add.at call is one fallback, not a lost region.
"""

import os

import pytest

import harness

CASES = {
    "scatter_add_at.py": {"embed_grad": 40, "accumulate": 20},
    "empty_like_rows.py": {"backward": 20, "embed_matmul": 20},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_training_constructs_run_as_graphs(name):
    program = harness.parse_header(os.path.join(harness.PROGRAMS, name))
    run = harness.run(program, "default", {"SPECULA_COST_CHECK": "off"})
    assert run.problem is None, run.problem
    assert run.returncode == 0, run.stderr
    for function, least_runs in CASES[name].items():
        rows = harness.report_entries(run, program, function)
        assert len(rows) == 1, (function, rows)
        row = rows[0]
        assert row["state"] == "compiled", (function, row["reason"])
        assert row["graph_runs"] >= least_runs, (function, row)
        assert row["fallbacks"] <= 1, (function, row)
