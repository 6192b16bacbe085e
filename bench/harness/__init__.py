"""Specula's benchmark harness: workloads in kernels and peers, timed side by side."""
