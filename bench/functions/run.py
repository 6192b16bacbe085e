#!/usr/bin/python3
"""Function-level benchmark: engine on ÷ engine off for NumPy functions called
in a loop, and the engine's cost on functions it never compiles.

Usage: bench/functions/run.py [--quick] [--rounds N] [--json FILE]

One process pair per run: two workers (`python3 -m specula`, SPECULA_ENGINE on
and off) built from the same seed. Rounds alternate which worker goes first;
each round times a batch of calls in each worker; the first rounds are
warm-up (the engine profiles and compiles there). Reported: medians per
batch, speed-up = off ÷ on (above 1 the engine is faster), and for the
never-compiled workload the overhead on ÷ off − 1. Both workers' final
states must be bit-identical, or the run fails.
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
    def __init__(self, engine):
        env = dict(os.environ, SPECULA_ENGINE=engine, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
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
    times = {"on": [], "off": []}
    for r in range(warmup + rounds):
        order = (on, off) if r % 2 == 0 else (off, on)
        for w in order:
            seconds = w.ask({"workload": name, "calls": calls})["seconds"]
            if r >= warmup:
                times[w.engine].append(seconds / calls)
    state_on, state_off = on.ask({"state": name}), off.ask({"state": name})
    med_on, med_off = statistics.median(times["on"]), statistics.median(times["off"])
    return {
        "workload": name,
        "title": workloads.WORKLOADS[name].title,
        "calls_per_batch": calls,
        "rounds": rounds,
        "median_on_s": med_on,
        "median_off_s": med_off,
        "speedup": med_off / med_on,
        "overhead_pct": (med_on / med_off - 1.0) * 100.0,
        "identical": state_on["sha256"] == state_off["sha256"],
        "regions": [{"name": r["name"], "state": r["state"], "graph_runs": r["graph_runs"],
                     "reason": r["reason"].replace(os.path.dirname(HERE) + "/", "") if r["reason"] else None}
                    for r in state_on["report"] if r["name"] in VERDICT_NAMES[name]],
    }


def run(quick=False, rounds=None):
    rounds = rounds or (3 if quick else 21)
    warmup = 2 if quick else 4
    scale = 0.1 if quick else 1.0
    on, off = worker("on"), worker("off")
    try:
        return [measure(name, on, off, rounds, warmup, max(1, int(CALLS[name] * scale))) for name in CALLS]
    finally:
        on.close()
        off.close()


def table(results):
    lines = ["| workload | engine off (median per call) | engine on | off ÷ on | bit-identical | engine's verdict |",
             "|---|---|---|---|---|---|"]
    for r in results:
        verdicts = "; ".join(f"{g['name']}: {g['state']}" + (f" ({g['reason']})" if g["reason"] else "")
                             for g in r["regions"])
        lines.append(f"| {r['title']} | {r['median_off_s'] * 1e6:.1f} µs | {r['median_on_s'] * 1e6:.1f} µs | "
                     f"{r['speedup']:.2f}× ({r['overhead_pct']:+.1f}% time) | {'yes' if r['identical'] else 'NO'} | "
                     f"{verdicts or 'never hot'} |")
    return "\n".join(lines)


def markdown(results):
    return ("## Function-level benchmark (engine on ÷ engine off)\n\n"
            "`bench/functions/run.py`: one pair of `python3 -m specula` processes, engine on and off, "
            "alternating batches of calls, medians per call; the first rounds (profiling, compiling) are "
            "not timed. off ÷ on above 1× means the engine is faster; the time change is on ÷ off − 1. "
            "The never-compiled row is the engine's cost on code it leaves to CPython "
            "(invariant 4).\n\n" + table(results) + "\n")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smoke sizes: checks it works, times nothing")
    p.add_argument("--rounds", type=int, help="timed rounds (default 21, quick 3)")
    p.add_argument("--json", help="also write the results as JSON here")
    options = p.parse_args(argv)
    results = run(options.quick, options.rounds)
    print(markdown(results))
    if options.json:
        with open(options.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0 if all(r["identical"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
