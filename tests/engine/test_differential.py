"""engine.differential: every program in programs/ gives the same results, output,
exceptions and final state with the engine off, on at threshold 0, and on at the
default threshold (issue 4's correctness bar). See harness.py for what is compared."""

import pytest

import harness

PROGRAMS = harness.programs()


@pytest.fixture(scope="module")
def results():
    return harness.run_suite("differential", PROGRAMS)


def test_specula_is_importable():
    problem = harness.importable_problem()
    assert problem is None, problem


def test_enough_programs():
    assert len(PROGRAMS) >= 80


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_engine_on_equals_engine_off(results, program):
    problems = harness.check_runs(program, results[program.name])
    assert not problems, "\n".join(problems)
