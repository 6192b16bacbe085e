"""Runs one peer implementation of one workload, driven by JSON lines on stdin.

Requests: {"cmd": "setup", "workload", "peer", "source"}, {"cmd": "run", "label"},
{"cmd": "check"}. The workload's setup cells run first, so the peer starts from the same
data and initial parameters as the notebook code.
"""
import importlib
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def serve(protocol_out):
    peer = None
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if request["cmd"] == "setup":
                from peers import load
                namespace = {"__name__": "__bench_setup__"}
                exec(compile(request["source"], "<setup>", "exec"), namespace)
                peer = load(request["workload"], request["peer"], namespace)
                reply = {"info": peer.info()}
            elif request["cmd"] == "run":
                t0 = time.perf_counter()
                peer.run(request["label"])
                reply = {"seconds": time.perf_counter() - t0}
            elif request["cmd"] == "check":
                peer.check()
                reply = {}
            else:
                reply = {"error": f"unknown request {request['cmd']!r}"}
        except Exception as exc:  # reported to the harness, which marks the peer failed
            reply = {"error": f"{type(exc).__name__}: {exc}",
                     "traceback": traceback.format_exc()}
        protocol_out.write(json.dumps(reply) + "\n")
        protocol_out.flush()


if __name__ == "__main__":
    # The protocol owns the real stdout; anything a library prints goes to stderr.
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    if len(sys.argv) > 1:
        from peers import MODULES
        importlib.import_module(MODULES[sys.argv[1]])
    serve(protocol)
