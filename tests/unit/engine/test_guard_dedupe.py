"""Guards are kept once per assumption: a helper inlined several times reads the same
sources (the helper, its code, `np`, `np.tanh`, a global) at every call, and each read
asks for its guard again. The specialisation keeps one of each, and a miss on one of
them is still explained by the guard that failed (also after it moved to the front of
its list because it failed most)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from engine_harness import differential  # noqa: E402

PROGRAM = """
    import json, numpy as np, specula

    def helper(a):
        for k in cfg:
            a = a * cfg[k]
        return np.tanh(a) * scale

    def other(a):
        for k in cfg:
            a = a * cfg[k]
        return np.tanh(a) * scale

    def f(x):
        x = helper(x)
        x = helper(x)
        x = helper(x)
        x = helper(x)
        return x

    seen = {}  # what the engine says, printed after the compared output

    def guards_of(name):
        if not specula.enabled():
            return []
        lines = specula.explain(name).splitlines()
        return [l.strip() for l in lines if l.strip().startswith("guard ")]

    def state():
        return {r["name"]: r for r in specula.report()}.get("f")

    scale = 0.5
    cfg = {"a": 1.5, "b": 0.5}
    x = np.linspace(-1.0, 1.0, 5)
    for _ in range(6):
        print(f(x).tobytes().hex())
    seen["GUARDS"] = guards_of("f")
    scale = 0.25                      # a value guard read four times, kept once, misses
    for _ in range(3):
        print(f(x).tobytes().hex())
    seen["MISS1"] = state()
    helper_first = helper
    helper = other                    # an identity guard read four times, kept once, misses
    for _ in range(3):
        print(f(x).tobytes().hex())
    seen["MISS2"] = state()
    helper = helper_first
    for _ in range(3):
        print(f(x).tobytes().hex())
    # G[cfg] has two guards (its type, then its keys) read four times: the keys' guard
    # fails, moves to the front of its list, and is the one the miss names.
    cfg["c"] = 2.0
    for _ in range(3):
        print(f(x).tobytes().hex())
    seen["MISS3"] = state()
    print("REPORT")
    for name, value in seen.items():
        print(name + json.dumps(value))
"""


def section(proc, name):
    line = [l for l in proc.stdout.splitlines() if l.startswith(name)][0]
    return json.loads(line[len(name):])


def test_each_assumption_is_guarded_once_and_misses_are_named(tmp_path):
    proc = differential(tmp_path, PROGRAM)
    guards = section(proc, "GUARDS")
    assert guards, proc.stdout
    # Four inlined calls, one guard per source and assumption.
    assert len(guards) == len(set(guards)), guards
    for source in ("G[helper] is", "G[helper].__code__ is", "G[np] is", "G[np].tanh is",
                   "G[scale]", "type(G[cfg])", "keys of G[cfg]", "G[cfg]['a']"):
        assert sum(source in g for g in guards) == 1, (source, guards)
    miss1 = section(proc, "MISS1")
    assert miss1["guard_misses"] >= 1
    assert "G[scale]" in (miss1["reason"] or ""), miss1
    miss2 = section(proc, "MISS2")
    assert miss2["guard_misses"] > miss1["guard_misses"]
    assert "G[helper] was rebound" in (miss2["reason"] or ""), miss2
    miss3 = section(proc, "MISS3")
    assert miss3["guard_misses"] > miss2["guard_misses"]
    assert "keys of G[cfg] changed" in (miss3["reason"] or ""), miss3
