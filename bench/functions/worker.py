"""One side of the function-level benchmark: runs under `python3 -m specula`
with the engine on or off and answers the driver's requests, one JSON line
each way: {"workload": name, "calls": n[, "engine": "on"|"off"]} -> {"seconds": s};
{"state": name}
-> {"sha256": ..., "report": [...]}."""
import hashlib
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads  # noqa: E402


def report():
    try:
        import specula
        return specula.report()
    except ImportError:
        return []


def main():
    built = {}
    for line in sys.stdin:
        request = json.loads(line)
        name = request.get("workload") or request.get("state")
        if name not in built:
            built[name] = workloads.WORKLOADS[name]()
        w = built[name]
        if "engine" in request:
            # The same process with its engine switched per batch: the cost
            # of the engine on code it leaves to CPython, free of the layout
            # differences between two processes.
            import specula
            specula.enable() if request["engine"] == "on" else specula.disable()
        if "calls" in request:
            start = time.perf_counter()
            w.run(request["calls"])
            answer = {"seconds": time.perf_counter() - start}
        else:
            answer = {"sha256": hashlib.sha256(w.state()).hexdigest(), "report": report()}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
