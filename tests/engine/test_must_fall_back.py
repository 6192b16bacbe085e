"""engine.must_fall_back: constructs the engine must leave to CPython (generators,
async, np.random, object dtype, ndarray subclasses, custom __getattr__/__setattr__,
in-line import and class, __array_ufunc__ overrides). Each program's
`# must-not-convert:` functions must never run as graphs and must be reported with a
reason; the programs must also give identical results with the engine on and off.
This file also checks the shape of specula.report() against the documented interface."""

import pytest

import harness

PROGRAMS = harness.programs("must_fall_back")


@pytest.fixture(scope="module")
def results():
    return harness.run_suite("must_fall_back", PROGRAMS)


def test_every_program_names_its_functions():
    assert all(p.must_not_convert for p in PROGRAMS)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_engine_on_equals_engine_off(results, program):
    problems = harness.check_runs(program, results[program.name])
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_stays_in_cpython_and_says_why(results, program):
    runs = results[program.name]
    problems = [f"[{r.mode}] {r.problem}" for r in runs.values() if r.problem]
    problems = problems or harness.fall_back_problems(program, runs)
    assert not problems, "\n".join(problems)


def test_report_matches_the_interface(results):
    problems = []
    for runs in results.values():
        for mode in ("thr0", "default"):
            run_ = runs[mode]
            problems += [run_.problem] if run_.problem else harness.report_schema_problems(run_)
    assert not problems, "\n".join(sorted(set(problems)))
