"""Dicts passed in and iterated, and Python ints that change on every call mixed with
arrays: what the engine did, beyond the equal results the differential programs
(programs/dict_source_*.py, relaxed_int_arrays.py) prove.

A loop over `params.items()` compiles once under a dict_keys guard (listed by explain);
a key added later misses the guard and compiles once more. A step counter in array
arithmetic is a graph input: one compile for every value, float32 results of
float32 arrays; a value of another NumPy promotion class (float32 * 70000 is
float64) compiles once more, guarded on its class; a Python int beyond 64 bits
runs in CPython, which gives NumPy's object array.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    import specula

    def sgd_step(params, grads, lr):
        for k, p in params.items():
            p -= lr * grads[k]
        return params["W"].sum()

    def decay(w, g, lr, t):
        w -= (lr / (1 + t)) * g
        return w * t

    def scale32(x, t):
        return x * t + 1.0

    def big(x, t):
        return x * t

    def row(name):
        return [r for r in specula.report() if r["name"] == name][0]

    params = {"W": np.ones((3, 4)), "b": np.zeros(4)}
    grads = {"W": np.full((3, 4), 0.5), "b": np.ones(4)}
    for i in range(30):
        sgd_step(params, grads, 0.01)
    sgd_before = row("sgd_step")
    sgd_explain = specula.explain("sgd_step")
    params["extra"] = np.ones(2)
    grads["extra"] = np.ones(2)
    for i in range(10):
        sgd_step(params, grads, 0.01)
    sgd_after = row("sgd_step")

    w, g = np.ones(4), np.full(4, 0.25)
    for t in range(40):
        decay(w, g, 0.1, t)
    decay_row = row("decay")

    x32 = np.linspace(-1.0, 1.0, 4).astype(np.float32)
    small = [str(scale32(x32, t).dtype) for t in range(30)]
    scale_small = row("scale32")
    large = [str(scale32(x32, t).dtype) for t in range(70000, 70030)]
    scale_large = row("scale32")

    x = np.arange(3.0)
    for t in range(30):
        big(x, t)
    big_before = row("big")
    huge = big(x, 2**64 + 5)
    big_after = row("big")

    print(json.dumps({"sgd_before": sgd_before, "sgd_explain": sgd_explain,
                      "sgd_after": sgd_after, "decay": decay_row, "small": small,
                      "large": large, "scale_small": scale_small, "scale_large": scale_large,
                      "big_before": big_before, "big_after": big_after,
                      "huge": [str(huge.dtype), [int(v) if isinstance(v, int) else v
                                                for v in huge.tolist()]]}))
""")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One `python3 -m specula` run of SCRIPT at the default threshold (profiling calls)."""
    path = tmp_path_factory.mktemp("dict_int") / "dict_int_script.py"
    path.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPECULA_")}
    env.update({"SPECULA_COST_CHECK": "off", "OMP_NUM_THREADS": "1",
                "OPENBLAS_NUM_THREADS": "1"})
    proc = subprocess.run([sys.executable, "-m", "specula", str(path)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_loop_over_a_dict_argument_compiles_under_a_keys_guard(runs):
    before = runs["sgd_before"]
    assert before["state"] == "compiled", before["reason"]
    assert before["compiles"] == 1 and before["graph_runs"] >= 25
    assert "guard dict_keys: keys of params are ('W', 'b') in this order" in runs["sgd_explain"]


def test_a_new_key_misses_the_guard_and_compiles_once_more(runs):
    before, after = runs["sgd_before"], runs["sgd_after"]
    assert after["state"] == "compiled", after["reason"]
    assert after["guard_misses"] >= 1
    # The guard that missed is named, not the one it swapped places with
    # when it moved to the front of its source's list.
    assert "keys of params changed" in (after["reason"] or ""), after["reason"]
    assert after["compiles"] == 2
    assert after["graph_runs"] >= before["graph_runs"] + 8


def test_a_step_counter_with_arrays_compiles_once(runs):
    decay = runs["decay"]
    assert decay["state"] == "compiled", decay["reason"]
    assert decay["compiles"] == 1
    assert decay["graph_runs"] >= 35


def test_float32_promotion_by_value_class(runs):
    assert set(runs["small"]) == {"float32"} and set(runs["large"]) == {"float64"}
    small, large = runs["scale_small"], runs["scale_large"]
    assert small["state"] == "compiled", small["reason"]
    assert small["compiles"] == 1 and small["graph_runs"] >= 25
    assert large["compiles"] == 2
    assert large["graph_runs"] >= small["graph_runs"] + 25


def test_an_int_beyond_64_bits_runs_in_cpython(runs):
    before, after = runs["big_before"], runs["big_after"]
    assert before["state"] == "compiled", before["reason"]
    assert before["graph_runs"] >= 25
    assert after["graph_runs"] == before["graph_runs"]
    assert after["fallbacks"] == before["fallbacks"] + 1
    assert "beyond 64 bits" in (after["reason"] or "")
    assert runs["huge"][0] == "object"
