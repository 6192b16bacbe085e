#!/usr/bin/python3
"""Which threads of a program burn the CPU: runs a command and samples
/proc/<pid>/task/* (state and schedstat's on-CPU nanoseconds) every
--interval milliseconds until it exits.

    bench/cpu/thread_census.py [--interval MS] -- /usr/bin/python3 -m specula w1.py

Prints, per thread: its name, CPU seconds, the share of samples it was
runnable (state R) and when it last ran; then how often more than two threads
of the process were runnable at once. Our pool's workers are named
"specula-lane<k>"; OpenBLAS's and OpenMP's workers keep the process's name
(tell them apart with `perf report --sort tid,dso`).
"""

import argparse
import collections
import os
import subprocess
import sys
import time


def read_task(pid, tid):
    base = f"/proc/{pid}/task/{tid}"
    try:
        with open(f"{base}/stat") as f:
            stat = f.read()
        with open(f"{base}/schedstat") as f:
            on_cpu_ns = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    # comm may hold spaces and parentheses: the state follows the last ')'.
    name = stat[stat.index("(") + 1:stat.rindex(")")]
    state = stat[stat.rindex(")") + 2]
    return name, state, on_cpu_ns


def census(cmd, interval):
    proc = subprocess.Popen(cmd)
    pid = proc.pid
    threads = {}  # tid -> dict(name, cpu_ns, runnable, samples, first)
    crowded = collections.Counter()  # runnable threads -> samples
    samples = 0
    start = time.monotonic()
    while proc.poll() is None:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            break
        running = 0
        for tid in tids:
            t = read_task(pid, tid)
            if t is None:
                continue
            name, state, ns = t
            rec = threads.setdefault(
                tid, dict(name=name, cpu_ns=0, runnable=0, samples=0,
                          first=time.monotonic() - start))
            rec["name"] = name
            if ns != rec["cpu_ns"]:
                rec["last_ran"] = time.monotonic() - start
            rec["cpu_ns"] = ns
            rec["samples"] += 1
            if state == "R":
                rec["runnable"] += 1
                running += 1
        crowded[running] += 1
        samples += 1
        time.sleep(interval / 1000.0)
    wall = time.monotonic() - start
    proc.wait()
    return proc.returncode, wall, threads, crowded, samples


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--interval", type=float, default=1.0, help="ms between samples")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        ap.error("no command")
    rc, wall, threads, crowded, samples = census(cmd, args.interval)
    load = os.getloadavg()
    print(f"\nthread census: {wall:.2f} s wall, {samples} samples, "
          f"load average {load[0]:.2f}, exit {rc}", file=sys.stderr)
    print(f"{'tid':>8} {'name':<16} {'cpu s':>8} {'R %':>6} {'born s':>7} {'last ran s':>10}",
          file=sys.stderr)
    for tid, r in sorted(threads.items(), key=lambda kv: int(kv[0])):
        share = 100.0 * r["runnable"] / max(r["samples"], 1)
        print(f"{tid:>8} {r['name']:<16} {r['cpu_ns'] / 1e9:8.3f} {share:6.1f} "
              f"{r['first']:7.2f} {r.get('last_ran', 0.0):10.2f}", file=sys.stderr)
    over = sum(c for k, c in crowded.items() if k > 2)
    print("runnable threads per sample: " +
          ", ".join(f"{k}: {c}" for k, c in sorted(crowded.items())) +
          f" (more than 2: {100.0 * over / max(samples, 1):.1f}%)", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
