#!/usr/bin/python3
"""Function-level benchmark: engine on ÷ engine off for NumPy functions called
in a loop, and the engine's cost on functions it never compiles.

Usage: bench/functions/run.py [--quick] [--rounds N] [--pairs N] [--json FILE]

Process pairs: two workers (`python3 -m specula`, SPECULA_ENGINE on and off)
built from the same seed and started with the same PYTHONHASHSEED (string
hashes decide dict layouts, and with random seeds two processes running the
same pure-Python code differed by up to 40 % whatever the engine did). Rounds
alternate which worker goes first; each round times a batch of calls in each
worker; the first rounds are warm-up (the engine profiles and compiles there).
Several pairs are run one after the other (each with its own hash seed) and
their batches pooled, so one unlucky process layout does not decide a row.
Reported: medians per batch, speed-up = off ÷ on (above 1 the engine is
faster), the spread of the per-pair speed-ups, and for the never-compiled
workload the overhead on ÷ off − 1. Every pair's final states must be
bit-identical, or the run fails.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import workloads  # noqa: E402

# Batches of ~20 ms: the workers wait between batches, and a wait lets the
# engine's timer re-install its hook (it parks again after 8192 calls of
# code that stays in CPython), as a notebook's pauses would.
# The functions whose engine verdict each row shows.
VERDICT_NAMES = {"mlp": {"mlp_step"}, "rnn": {"rnn_step"}, "pure": {"fib", "tokens", "count"}}

CALLS = {"mlp": 200, "rnn": 2000, "pure": 200}


class worker:
    def __init__(self, engine, hash_seed):
        env = dict(os.environ, SPECULA_ENGINE=engine, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                   PYTHONHASHSEED=str(hash_seed))
        env.pop("SPECULA_THRESHOLD", None)
        self.engine = engine
        self.proc = subprocess.Popen(["/usr/bin/python3", "-m", "specula", os.path.join(HERE, "worker.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)

    def ask(self, request):
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"worker (engine {self.engine}) died")
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def measure(name, on, off, rounds, warmup, calls):
    """Per-call times of one workload in one process pair, and whether the
    two workers ended in the same state."""
    times = {"on": [], "off": []}
    for r in range(warmup + rounds):
        order = (on, off) if r % 2 == 0 else (off, on)
        for w in order:
            seconds = w.ask({"workload": name, "calls": calls})["seconds"]
            if r >= warmup:
                times[w.engine].append(seconds / calls)
    state_on, state_off = on.ask({"state": name}), off.ask({"state": name})
    return times, state_on["sha256"] == state_off["sha256"], state_on["report"]


def measure_toggled(name, on, rounds, warmup, calls):
    """Per-call times of `name` in the engine-on worker, its engine switched on
    and off batch by batch (specula.enable/disable), in alternating order."""
    times = {"on": [], "off": []}
    for r in range(warmup + rounds):
        for engine in (("on", "off") if r % 2 == 0 else ("off", "on")):
            seconds = on.ask({"workload": name, "calls": calls, "engine": engine})["seconds"]
            if r >= warmup:
                times[engine].append(seconds / calls)
    on.ask({"workload": name, "calls": 0, "engine": "on"})
    return times


def summarise(name, calls, rounds, pairs):
    """One row from the pairs' measurements of `name`: pooled medians, the
    per-pair speed-ups, the engine's verdicts from the last pair."""
    pooled = {"on": [], "off": []}
    speedups = []
    for times, _, _ in pairs:
        pooled["on"] += times["on"]
        pooled["off"] += times["off"]
        speedups.append(statistics.median(times["off"]) / statistics.median(times["on"]))
    med_on, med_off = statistics.median(pooled["on"]), statistics.median(pooled["off"])
    report = pairs[-1][2]
    return {
        "workload": name,
        "title": workloads.WORKLOADS[name].title,
        "calls_per_batch": calls,
        "rounds": rounds,
        "pairs": len(pairs),
        "median_on_s": med_on,
        "median_off_s": med_off,
        "speedup": med_off / med_on,
        "pair_speedups": speedups,
        "overhead_pct": (med_on / med_off - 1.0) * 100.0,
        "identical": all(identical for _, identical, _ in pairs),
        "regions": [{"name": r["name"], "state": r["state"], "graph_runs": r["graph_runs"],
                     "reason": r["reason"].replace(os.path.dirname(HERE) + "/", "") if r["reason"] else None}
                    for r in report if r["name"] in VERDICT_NAMES[name]],
    }


def run(quick=False, rounds=None, pairs=None):
    rounds = rounds or (3 if quick else 15)
    pairs = pairs or (1 if quick else 3)
    warmup = 2 if quick else 4
    scale = 0.1 if quick else 1.0
    calls = {name: max(1, int(n * scale)) for name, n in CALLS.items()}
    measured = {name: [] for name in CALLS}
    toggled = []
    for pair in range(pairs):
        on, off = worker("on", pair + 1), worker("off", pair + 1)
        try:
            for name in CALLS:
                measured[name].append(measure(name, on, off, rounds, warmup, calls[name]))
            toggled.append(measure_toggled("pure", on, rounds, warmup, calls["pure"]))
        finally:
            on.close()
            off.close()
    rows = [summarise(name, calls[name], rounds, measured[name]) for name in CALLS]
    pure = next(r for r in rows if r["workload"] == "pure")
    pure["same_process"] = same_process(toggled)
    return rows


def same_process(toggled):
    """The never-compiled workload with the engine switched in one process."""
    on = [t for times in toggled for t in times["on"]]
    off = [t for times in toggled for t in times["off"]]
    med_on, med_off = statistics.median(on), statistics.median(off)
    return {"median_on_s": med_on, "median_off_s": med_off,
            "overhead_pct": (med_on / med_off - 1.0) * 100.0,
            "pair_overhead_pct": [(statistics.median(t["on"]) / statistics.median(t["off"]) - 1.0) * 100.0
                                  for t in toggled]}


def table(results):
    lines = ["| workload | engine off (median per call) | engine on | off ÷ on | per pair | bit-identical "
             "| engine's verdict |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        verdicts = "; ".join(f"{g['name']}: {g['state']}" + (f" ({g['reason']})" if g["reason"] else "")
                             for g in r["regions"])
        lines.append(f"| {r['title']} | {r['median_off_s'] * 1e6:.1f} µs | {r['median_on_s'] * 1e6:.1f} µs | "
                     f"{r['speedup']:.2f}× ({r['overhead_pct']:+.1f}% time) | "
                     f"{' '.join(f'{x:.2f}' for x in r['pair_speedups'])} | {'yes' if r['identical'] else 'NO'} | "
                     f"{verdicts or 'never hot'} |")
    for r in results:
        same = r.get("same_process")
        if same:
            lines.append("")
            lines.append(f"Never-compiled calls in one process, engine switched batch by batch "
                         f"(`specula.enable()`/`disable()`): {same['median_off_s'] * 1e6:.1f} µs off, "
                         f"{same['median_on_s'] * 1e6:.1f} µs on, {same['overhead_pct']:+.1f}% time "
                         f"(per pair: {', '.join(f'{x:+.1f}%' for x in same['pair_overhead_pct'])}). "
                         "Two processes running the same pure-Python code differ by more than the engine "
                         "does (the per-pair column above); this row is the engine's own cost.")
    return "\n".join(lines)


def markdown(results):
    return ("## Function-level benchmark (engine on ÷ engine off)\n\n"
            "`bench/functions/run.py`: pairs of `python3 -m specula` processes, engine on and off, "
            "with one hash seed per pair, alternating batches of calls, medians per call over the pairs' "
            "pooled batches (the per-pair speed-ups are listed); the first rounds (profiling, compiling) "
            "are not timed. off ÷ on above 1× means the engine is faster; the time change is on ÷ off − 1. "
            "The never-compiled row is the engine's cost on code it leaves to CPython "
            "(invariant 4).\n\n" + table(results) + "\n")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smoke sizes: checks it works, times nothing")
    p.add_argument("--rounds", type=int, help="timed rounds per pair (default 15, quick 3)")
    p.add_argument("--pairs", type=int, help="process pairs (default 3, quick 1)")
    p.add_argument("--json", help="also write the results as JSON here")
    options = p.parse_args(argv)
    results = run(options.quick, options.rounds, options.pairs)
    print(markdown(results))
    if options.json:
        with open(options.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0 if all(r["identical"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
