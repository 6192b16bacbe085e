"""Peer implementations of the workloads, written as a user of each library would.

`load(workload_id, peer, namespace)` takes the namespace left by the workload's setup
cells (same data, same initial parameters) and returns an object with `run(label)`
(the work of one timed cell), `check()` (agreement with the NumPy code) and `info()`.
"""
import importlib

MODULES = {"numba": "peers.numba_peers", "torch": "peers.torch_peers",
           "torchscript": "peers.torch_peers", "numexpr": "peers.numexpr_peers"}


def load(workload_id, peer, namespace):
    module = importlib.import_module(MODULES[peer])
    return module.make(workload_id, peer, namespace)
