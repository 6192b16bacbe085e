"""engine.interrupts: all-or-nothing under KeyboardInterrupt (DESIGN invariant 2).

programs/interrupts/ programs deliver SIGINT at random points while a hot function
runs, and check after every call that the state is one CPython could also leave
(see interrupt_counter.py). Their timing is random, so runs are not compared with
each other; each run, engine off and on, must report no violation and no lost
interrupt. How many interrupts landed inside the function, and how many only
surfaced when the wait polled for them (CPython's own missed wakeup), is printed,
not asserted.
"""

import pytest

import harness

PROGRAMS = harness.programs("interrupts")


@pytest.fixture(scope="module")
def results():
    return harness.run_suite("interrupts", PROGRAMS)


def summary_of(run_):
    for event in run_.record["events"]:
        if event.get("snapshot") == "summary":
            return decode(event["value"])
    raise AssertionError(f"[{run_.mode}] the program recorded no summary")


def decode(value):
    """The probe's JSON back into plain Python values (enough for the summary)."""
    if isinstance(value, dict):
        if "int" in value:
            return int(value["int"])
        if "float" in value:
            return float(value["float"])
        if "npscalar" in value:
            return value["repr"]
        if "dict" in value:
            return {decode(k): decode(v) for k, v in value["dict"]}
        for kind in ("list", "tuple"):
            if kind in value:
                return [decode(v) for v in value[kind]]
    return value


@pytest.mark.parametrize("mode", list(harness.MODES))
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_all_or_nothing(results, program, mode):
    run_ = results[program.name][mode]
    assert not run_.problem, run_.problem
    assert run_.returncode == 0, harness.tail(run_.stderr)
    summary = summary_of(run_)
    print(f"{program.name} [{mode}]: {summary['interrupted_inside']} interrupts inside the "
          f"call, {summary['interrupted_after']} after it "
          f"({summary.get('late_wakeups', 0)} only when the wait polled: see _interrupts.py)")
    assert summary["lost_interrupts"] == 0, f"SIGINTs that never raised: {summary}"
    assert summary["violation_count"] == 0, f"partial effects seen: {summary}"
