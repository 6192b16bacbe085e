"""engine.onednn_fast: the numerics policy's two float32 modes through the engine.

One program (programs/fast_mode/onednn_f32.py) runs with the engine off, on in
`exact` mode and on in `fast` mode. `exact` must give NumPy's bytes; `fast` runs
softmax, layer normalisation, row sums and a sqrt chain on oneDNN, so its bytes
differ from NumPy's, within the bounds of backends/cpu/README.md ("Tolerance
policy") and with NumPy's NaN pattern.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "programs", "fast_mode", "onednn_f32.py")
EPS32 = float(np.finfo(np.float32).eps)


def run(mode_env):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "results.npz")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SPECULA_")}
        # The cost check could hand a slower graph back to CPython: off, so the
        # kernels under test run.
        env.update(mode_env, SPECULA_RESULTS=out, SPECULA_COST_CHECK="off",
                   PYTHONHASHSEED="0")
        done = subprocess.run([sys.executable, "-m", "specula", PROGRAM], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        with np.load(out) as data:
            return {k: data[k] for k in data.files}


def test_exact_mode_is_numpy_and_fast_mode_is_within_tolerance():
    off = run({"SPECULA_ENGINE": "off"})
    exact = run({"SPECULA_THRESHOLD": "0", "SPECULA_NUMERICS": "exact"})
    fast = run({"SPECULA_THRESHOLD": "0", "SPECULA_NUMERICS": "fast"})
    for name, numpy_result in off.items():
        assert exact[name].tobytes() == numpy_result.tobytes(), name
        got = fast[name]
        assert np.array_equal(np.isnan(got), np.isnan(numpy_result)), name
        # Both within the README's bound of the float64 value, so within twice
        # it of each other: (K + 8) eps |y| for softmax and the norm's |z| + 1
        # scale, K eps sum|x| for sums (K = 1000 here), 3 steps for the chain.
        k = 1000
        ok = ~np.isnan(numpy_result)
        scale = {"softmax": np.abs(numpy_result), "layernorm": np.abs(numpy_result) + 3.0,
                 "rowsum": np.abs(numpy_result), "sqrt_chain": np.abs(numpy_result)}[name]
        factor = 2 * (k + 8) * EPS32 if name != "sqrt_chain" else 2 * 9 * EPS32
        assert np.all(np.abs(got[ok] - numpy_result[ok]) <= factor * scale[ok]), name
    # fast mode really took oneDNN: reassociated sums, so not NumPy's bytes (the
    # sqrt chain is exactly rounded step by step on both, so it may match).
    for name in ("softmax", "layernorm", "rowsum"):
        assert fast[name].tobytes() != off[name].tobytes(), f"{name}: fast mode ran NumPy's kernels"
