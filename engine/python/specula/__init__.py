"""Specula's speculative engine: hot NumPy functions run as guarded graphs.

Inside the Specula kernel this reaches the kernel's own engine (the builtin
module ``_specula_engine``); elsewhere it loads the extension ``specula._engine``.
"""
import os

# OpenBLAS's idle workers spin (sched_yield) for 2^28 cycles (~0.1 s here)
# after each threaded call, next to our lanes; 2^18 (~0.1 ms) keeps them hot
# across back-to-back calls and asleep once a BLAS phase is over. OpenBLAS reads
# this once when it loads (here, with the extension, unless NumPy loaded it
# first); it changes only timing, never bits: the thread count, which decides
# how a product is split, stays NumPy's (backends/cpu/README.md, Threading).
# Set whatever the engine mode, so engine off and on time alike.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "18")

try:
    import _specula_engine as _engine
except ImportError:
    from . import _engine

enabled = _engine.enabled


def enable():
    """Install the frame hook (a no-op under SPECULA_ENGINE=off)."""
    _engine.enable()


def disable():
    """Remove the frame hook; compiled regions stay cached."""
    _engine.disable()


def numerics():
    """The numerics mode: 'fast' (float32 may run on reassociating kernels
    within the documented tolerance) or 'exact' (NumPy's bits for float32 too)."""
    return _engine.numerics()


def set_numerics(mode):
    """Switch the numerics mode to 'fast' or 'exact'. Compiled specialisations
    whose kernels depend on it are dropped and recompile on their next call;
    returns how many were dropped."""
    return _engine.set_numerics(mode)


def reset():
    """Forget every region, specialisation and counter: the report is empty
    and every function is cold again."""
    _engine.reset()


def explain(name=None, file=None, line=None):
    """Why a function compiled or not, as text: its state, counters, last
    failure and specialisations with their guards and asserts. Give its name,
    or a file and a line inside it. LookupError when the engine never saw it."""
    return _engine.explain(name, file, line)


def graph_dot(name=None, file=None, line=None):
    """The Graphviz DOT text of the IR graph the function's most recently used
    specialisation runs. LookupError when it has none."""
    return _engine.graph_dot(name, file, line)


def report():
    """One dict per region that was ever hot: name, file, line, kind, state,
    graph_runs, fallbacks, guard_misses, assert_failures, reason."""
    return _engine.report()


def report_table():
    """The report as a readable table."""
    return _engine.report_table()


__all__ = ["enable", "disable", "report", "report_table", "enabled", "numerics", "set_numerics",
           "reset", "explain", "graph_dot"]
