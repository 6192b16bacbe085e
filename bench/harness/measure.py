"""Runs one workload in every contender, alternating them run by run, and collects times."""
import statistics
import sys
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from . import cells as cell_files
from .contenders import ContenderError
from .kernels import KernelContender
from .peers import PeerContender, available


def log(message):
    print(message, file=sys.stderr, flush=True)


@dataclass
class Outcome:
    """What happened to one contender on one workload."""
    name: str
    kind: str  # "kernel" or "peer"
    error: str = ""
    checked: bool = False
    warmups: dict = field(default_factory=dict)  # label -> [(inner, wall)]
    runs: dict = field(default_factory=dict)  # label -> [(inner, wall)]
    engine: object = None
    info: dict = field(default_factory=dict)

    def median(self, label, metric):
        samples = self.runs.get(label)
        if self.error or not samples:
            return None
        return statistics.median(s[0 if metric == "inner" else 1] for s in samples)

    def spread(self, label, metric):
        """Interquartile range over the median: how noisy the timed runs were."""
        samples = sorted(s[0 if metric == "inner" else 1] for s in self.runs.get(label, []))
        if self.error or len(samples) < 4:
            return None
        q1, _, q3 = statistics.quantiles(samples, n=4)
        return (q3 - q1) / statistics.median(samples)

    def first_run_extra(self, label):
        """Warm-up time beyond the steady state: compilation, caches, JIT profiling."""
        steady = self.median(label, "inner")
        if steady is None:
            return None
        return sum(max(0.0, w[0] - steady) for w in self.warmups.get(label, []))


def make_contenders(workload, options):
    kernels = [("ipykernel", "python3", {}),
               ("specula-off", "specula", {"SPECULA_ENGINE": "off"}),
               ("specula-on", "specula", {"SPECULA_ENGINE": "on"})]
    contenders = [KernelContender(name, spec, options.quick, env) for name, spec, env in kernels]
    outcomes = [Outcome(name, "kernel") for name, _, _ in kernels]
    for peer in ([] if options.no_peers else workload.peers):
        if available(peer):
            contenders.append(PeerContender(workload, peer, options.quick,
                                            {"NUMBA_CACHE_DIR": options.numba_cache}))
            outcomes.append(Outcome(peer, "peer"))
        else:
            outcomes.append(Outcome(peer, "peer", error="not installed"))
    return contenders, outcomes


def guarded(outcome, step, action):
    """Run one step of a contender; a failure retires that contender, not the run."""
    if outcome.error:
        return None
    try:
        return action()
    except Exception as exc:  # whatever broke, the other contenders still get measured
        outcome.error = f"{step}: {exc}"
        log(f"    {outcome.name} failed at {step}: {exc}")
        if not isinstance(exc, ContenderError):
            log(traceback.format_exc())
        return None


def measure(workload, options):
    cells = cell_files.read(workload.path)
    setup = [c for c in cells if c.kind == "setup"]
    checks = [c for c in cells if c.kind == "check"]
    timed = [c for c in cells if c.kind == "timed"]
    contenders, outcomes = make_contenders(workload, options)
    live = [(c, o) for c, o in zip(contenders, (o for o in outcomes if not o.error))]
    work = {}
    try:
        log(f"  {workload.id}: starting " + ", ".join(o.name for _, o in live))
        for contender, outcome in live:
            guarded(outcome, "start", contender.launch)
        for contender, outcome in live:
            guarded(outcome, "start", contender.wait_ready)
            guarded(outcome, "setup", lambda: contender.setup(setup))
            outcome.info = getattr(contender, "info", {})
        work = estimate_work(workload, live)
        for label, cell in ((c.label, c) for c in timed):
            for o in outcomes:
                o.warmups[label], o.runs[label] = [], []
        for i in range(options.warmup + options.repeat):
            # Rotate the starting contender each round so no one always runs first.
            shift = i % len(live)
            for contender, outcome in live[shift:] + live[:shift]:
                for cell in timed:
                    sample = guarded(outcome, f"timed {cell.label}".strip(),
                                     lambda: contender.run(cell))
                    if sample is not None:
                        target = outcome.warmups if i < options.warmup else outcome.runs
                        target[cell.label].append(sample)
        for contender, outcome in live:
            guarded(outcome, "check", lambda: contender.check(checks))
            outcome.checked = not outcome.error
            if outcome.kind == "kernel":
                outcome.engine = guarded(outcome, "engine report", contender.engine_report)
    finally:
        with ThreadPoolExecutor(len(live)) as pool:  # shutdowns wait; let them overlap
            list(pool.map(stop_quietly, (c for c, _ in live)))
    return {"outcomes": outcomes, "work": work}


def stop_quietly(contender):
    try:
        contender.stop()
    except Exception as exc:  # a kernel that will not stop must not hide the results
        log(f"    could not stop {contender.name}: {exc}")


def estimate_work(workload, live):
    """flops/bytes of each timed cell, evaluated in the reference kernel's namespace."""
    reference = next(((c, o) for c, o in live if o.name == "ipykernel" and not o.error), None)
    if reference is None:
        return {}
    contender, outcome = reference
    work = {}
    for t in workload.timed:
        entry = {}
        for key in ("flops", "bytes"):
            expression = getattr(t, key)
            if expression:
                value = guarded(outcome, f"estimate {key}", lambda: contender.evaluate(expression))
                entry[key] = float(value) if value is not None else None
        work[t.label] = entry
    return work
