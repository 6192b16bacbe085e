"""Peer contenders: Numba, PyTorch and numexpr versions run in a plain Python process.

The worker (peer_worker.py) speaks JSON lines on its stdin/stdout, so a peer can be
alternated with the kernels run by run, like any other contender.
"""
import json
import os
import subprocess
import time

from .contenders import ContenderError, child_env

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peer_worker.py")
PYTHON = "/usr/bin/python3"


class PeerContender:
    def __init__(self, workload, peer, quick, env=None):
        self.name, self.workload, self.peer = peer, workload, peer
        extra = dict(env or {})
        if peer.startswith("torch"):
            extra["OMP_WAIT_POLICY"] = "passive"  # idle OpenMP threads must not spin
        self.env = child_env(quick, extra)
        self.proc = None
        self.info = {}

    def launch(self):
        # The worker imports the peer's library while the kernels start.
        self.proc = subprocess.Popen([PYTHON, WORKER, self.peer], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=self.env, text=True)

    def wait_ready(self):
        pass

    def call(self, **request):
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        t0 = time.perf_counter()
        line = self.proc.stdout.readline()
        wall = time.perf_counter() - t0
        if not line:
            raise ContenderError(f"{self.name}: worker exited ({self.proc.wait()})")
        reply = json.loads(line)
        if "error" in reply:
            raise ContenderError(f"{self.name}: {reply['error']}")
        return reply, wall

    def setup(self, cells):
        reply, _ = self.call(cmd="setup", workload=self.workload.id, peer=self.peer,
                             source="\n\n".join(c.source for c in cells))
        self.info = reply.get("info", {})

    def run(self, cell):
        reply, wall = self.call(cmd="run", label=cell.label)
        return reply["seconds"], wall

    def check(self, cells):
        self.call(cmd="check")

    def engine_report(self):
        return None

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def available(peer):
    """Whether the peer's library imports in the plain interpreter."""
    module = {"numba": "numba", "torch": "torch", "torchscript": "torch",
              "numexpr": "numexpr"}[peer]
    return subprocess.run([PYTHON, "-c", f"import {module}"], capture_output=True,
                          env=child_env(True)).returncode == 0


