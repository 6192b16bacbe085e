"""bench/run: measure every workload in every contender and write the results page."""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

from . import machine, measure, registry, report

sys.path.insert(0, os.path.join(registry.BENCH_DIR, "functions"))
import run as function_level  # noqa: E402  (bench/functions/run.py)

DEFAULT_RESULTS = os.path.join(registry.BENCH_DIR, "RESULTS.md")


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench/run", description=__doc__)
    p.add_argument("--quick", action="store_true",
                   help="smoke sizes and few runs: checks everything works, times nothing")
    p.add_argument("--only", default="", help="comma-separated workloads, e.g. W1,W3")
    p.add_argument("--repeat", type=int, help="timed runs per cell (default 11, quick 2)")
    p.add_argument("--warmup", type=int, help="warm-up runs per cell (default 3, quick 1)")
    p.add_argument("--results", help="results page to write (default bench/RESULTS.md; "
                   "with --quick a temporary directory)")
    p.add_argument("--no-peers", action="store_true", help="kernels only")
    p.add_argument("--no-peaks", action="store_true", help="skip the GEMM/triad peaks")
    p.add_argument("--note", default="", help="a paragraph added to the results page")
    p.add_argument("--no-functions", action="store_true",
                   help="skip the function-level benchmark (bench/functions; also skipped with --only)")
    options = p.parse_args(argv)
    options.repeat = options.repeat or (2 if options.quick else 11)
    options.warmup = options.warmup if options.warmup is not None else (1 if options.quick else 3)
    if options.results is None:
        options.results = (os.path.join(tempfile.gettempdir(), "specula-bench-quick", "RESULTS.md")
                           if options.quick else DEFAULT_RESULTS)
    if options.quick and os.path.abspath(options.results) == DEFAULT_RESULTS:
        p.error("--quick must not overwrite bench/RESULTS.md: pass --results elsewhere")
    return options


def main(argv=None):
    options = parse_args(sys.argv[1:] if argv is None else argv)
    out_dir = os.path.dirname(os.path.abspath(options.results))
    os.makedirs(out_dir, exist_ok=True)
    # Smoke runs reuse Numba's compiled code; full runs compile from scratch so that the
    # compile time they report is real.
    fresh_cache = None
    if options.quick:
        options.numba_cache = os.path.join(out_dir, "numba-cache")
    else:
        fresh_cache = options.numba_cache = tempfile.mkdtemp(prefix="specula-bench-numba-")
    started = time.perf_counter()
    load_at_start = os.getloadavg()[0]
    if load_at_start > 1.0:
        measure.log(f"warning: load average {load_at_start:.1f}: other work will add noise")
    try:
        measure.log("machine: describing and measuring peaks")
        described = machine.describe()
        peaks = None if options.no_peaks else machine.peaks(options.quick)
        results = []
        for workload in registry.select(options.only):
            measure.log(f"{workload.id}: {workload.title}")
            results.append((workload, measure.measure(workload, options)))
        functions = None
        if not options.no_functions and not options.only:
            measure.log("functions: engine on ÷ off, function level")
            functions = function_level.run(options.quick)
        if peaks and not options.quick:
            # Peaks are best-of: measuring again at the end halves the chance that
            # other work on the machine set them.
            measure.log("machine: measuring peaks again")
            peaks = machine.best_of(peaks, machine.peaks(options.quick))
    finally:
        if fresh_cache:
            shutil.rmtree(fresh_cache, ignore_errors=True)
    options.specula_version = specula_version(results)
    options.load = (load_at_start, os.getloadavg()[0])
    options.elapsed = time.perf_counter() - started
    table = report.rows(results, peaks)
    print(report.console_table(table))
    page = report.markdown(table, results, described, peaks, options)
    dumped = report.json_dump(table, results, described, peaks, options)
    if functions is not None:
        print(function_level.table(functions))
        page += "\n" + function_level.markdown(functions)
        data = json.loads(dumped)
        data["functions"] = functions
        dumped = json.dumps(data, indent=1)
    with open(options.results, "w", encoding="utf-8") as f:
        f.write(page)
    with open(os.path.splitext(options.results)[0] + ".json", "w", encoding="utf-8") as f:
        f.write(dumped)
    problems = report.failures(results)
    for f_result in functions or []:
        if not f_result["identical"]:
            problems.append(("functions", f_result["workload"], "engine on and off states differ"))
    for workload_id, name, error in problems:
        print(f"FAILED {workload_id} {name}: {error}")
    print(f"results: {options.results} ({time.perf_counter() - started:.0f} s)")
    return 1 if problems else 0


def specula_version(results):
    for _, measured in results:
        for o in measured["outcomes"]:
            if o.name.startswith("specula") and o.info:
                return f"{o.info.get('implementation', '')} {o.info.get('version', '')}".strip()
    return "n/a"
