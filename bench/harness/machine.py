"""The machine: description, library versions and measured peaks.

Peaks are measured in a plain Python process with the harness's thread settings:
GEMM with NumPy (OpenBLAS, both dtypes) and STREAM triad with a small C program built
at run time (gcc -O3 -march=native -fopenmp), falling back to NumPy if gcc is missing.
"""
import os
import platform
import shutil
import subprocess
import tempfile

from .contenders import child_env

PYTHON = "/usr/bin/python3"
HERE = os.path.dirname(os.path.abspath(__file__))

GEMM = """
import sys, time, numpy as np
n, dtype = int(sys.argv[1]), sys.argv[2]
a = np.random.default_rng(0).random((n, n)).astype(dtype)
b = a.copy(); c = a @ b
best = 0.0
for _ in range(int(sys.argv[3])):
    t0 = time.perf_counter(); np.matmul(a, b, out=c); dt = time.perf_counter() - t0
    best = max(best, 2 * n**3 / dt / 1e9)
print(best)
"""

NUMPY_TRIAD = """
import time, numpy as np
n = 1 << 25
a, b, c = np.zeros(n), np.ones(n), np.full(n, 2.0)
best = 0.0
for _ in range(10):
    t0 = time.perf_counter(); np.multiply(c, 3.0, out=a); a += b; dt = time.perf_counter() - t0
    best = max(best, 24 * n / dt / 1e9)  # two passes really move 40 bytes: a lower estimate
print(best)
"""


def _python(code, *args):
    out = subprocess.run([PYTHON, "-c", code, *map(str, args)], capture_output=True,
                         text=True, env=child_env(True), check=True)
    return float(out.stdout.split()[0])


def gemm_gflops(dtype, quick):
    n = 1024 if quick else 2048
    return _python(GEMM, n, dtype, 3 if quick else 10)


def stream_triad_gbs(quick):
    gcc = shutil.which("gcc")
    if gcc is None:
        return _python(NUMPY_TRIAD), "NumPy multiply+add (gcc not found)"
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "triad")
        subprocess.run([gcc, "-O3", "-march=native", "-fopenmp", "-o", exe,
                        os.path.join(HERE, "stream_triad.c")], check=True, capture_output=True)
        n, reps = (1 << 23, 3) if quick else (1 << 25, 20)
        out = subprocess.run([exe, str(n), str(reps)], capture_output=True, text=True,
                             env=child_env(True), check=True)
    return float(out.stdout.split()[0]), "C STREAM triad, gcc -O3 -march=native -fopenmp, 2 threads"


def peaks(quick):
    triad, how = stream_triad_gbs(quick)
    return {"gemm_float32": gemm_gflops("float32", quick),
            "gemm_float64": gemm_gflops("float64", quick),
            "triad": triad, "triad_method": how}


def best_of(first, second):
    """The higher of two peak measurements, each figure on its own."""
    best = dict(max((first, second), key=lambda p: p["triad"]))
    for key in ("gemm_float32", "gemm_float64"):
        best[key] = max(first[key], second[key])
    return best


def _first_line(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "n/a"


VERSIONS = """
import importlib, json, sys
found = {"python": sys.version.split()[0]}
for name in ("numpy", "ipykernel", "jupyter_client", "numba", "torch", "numexpr"):
    try:
        found[name] = importlib.import_module(name).__version__
    except Exception:
        found[name] = "missing"
try:
    from threadpoolctl import threadpool_info
    found["blas"] = ", ".join(f"{i['internal_api']} {i['version']}" for i in threadpool_info())
except Exception:
    found["blas"] = "see numpy.show_config()"
print(json.dumps(found))
"""


def describe():
    import json
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kb = int(f.readline().split()[1])
    versions = json.loads(subprocess.run([PYTHON, "-c", VERSIONS], capture_output=True,
                                         text=True, env=child_env(True)).stdout)
    blas = os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kb / 2**20),
        "gpu": "none",
        "os": _first_line(["sh", "-c", ". /etc/os-release && echo $PRETTY_NAME"]),
        "kernel": platform.release(),
        "blas_library": blas,
        "openblas_env": ", ".join(f"{k}={v}" for k, v in sorted(os.environ.items())
                                  if k.startswith("OPENBLAS_") and k != "OPENBLAS_NUM_THREADS")
                        or "none",
        "versions": versions,
    }
