"""Contenders: something that can set up a workload, run its timed cells and check it.

Every contender answers the same calls so the harness can alternate them run by run.
`run(label)` returns (inner, wall) in seconds: the time measured around the work inside
the contender, and the time seen from the harness (request to reply).
"""
import os

THREAD_ENV = {
    # Two cores: one thread per core for every library, no oversubscription.
    "OMP_NUM_THREADS": "2",
    "OPENBLAS_NUM_THREADS": "2",
    "MKL_NUM_THREADS": "2",
    "NUMEXPR_NUM_THREADS": "2",
    "NUMBA_NUM_THREADS": "2",
}


class ContenderError(RuntimeError):
    """A setup, timed or check step failed inside a contender."""


def child_env(quick, extra=None):
    env = dict(os.environ)
    env.update(THREAD_ENV)
    # ipykernel's debugger otherwise warns about frozen modules on every start.
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    env["SPECULA_BENCH_QUICK"] = "1" if quick else "0"
    env.update(extra or {})
    return env
