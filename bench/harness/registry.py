"""The workloads: where their code lives, their goals, peers and lower bounds.

Goals are Specula engine-on speedups over ipykernel from the benchmarks issue. Work
estimates are Python expressions evaluated in the workload's own namespace after setup,
so they follow the sizes the workload really ran with (full or quick).
"""
import os
from dataclasses import dataclass, field

BENCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOAD_DIR = os.path.join(BENCH_DIR, "workloads")


@dataclass
class Timed:
    label: str  # matches the `# %% timed <label>` cell
    goal: float  # engine-on speedup over ipykernel
    dtype: str = "float64"  # selects the GEMM peak for the compute bound
    flops: str = ""  # floating-point operations of one run of the cell
    bytes: str = ""  # minimum memory traffic of one run of the cell
    metric: str = "inner"  # "inner": time in the kernel; "wall": request-to-reply


@dataclass
class Workload:
    id: str
    title: str
    file: str
    timed: list
    peers: list = field(default_factory=list)

    @property
    def path(self):
        return os.path.join(WORKLOAD_DIR, self.file)


def _rnn_flops():
    # per time step: Wxh·x, Whh·h, Why·h forward; backward about twice that.
    return "3 * 2 * iterations * seq_length * (2 * hidden_size * vocab_size + hidden_size**2)"


WORKLOADS = [
    Workload("W1", "char-RNN (min-char-rnn), float64", "w1_char_rnn.py",
             [Timed("", 8.0, flops=_rnn_flops())],
             peers=["numba", "torch", "torchscript"]),
    Workload("W2", "LSTM LM, manual backprop, float32", "w2_lstm_lm.py",
             [Timed("", 1.7, dtype="float32",
                    flops="3 * 2 * iterations * num_steps * batch_size * hidden_size"
                          " * (8 * hidden_size + vocab_size)")],
             peers=["torch", "torchscript"]),
    Workload("W3", "MLP 784-256-256-10, manual backprop", "w3_mlp.py",
             [Timed("f32", 1.3, dtype="float32",
                    flops="3 * 2 * batches * batch_size * (784*256 + 256*256 + 256*10)"),
              Timed("f64", 1.3,
                    flops="3 * 2 * batches * batch_size * (784*256 + 256*256 + 256*10)")],
             peers=["numba", "torch", "torchscript"]),
    Workload("W4", "TreeRNN over Python node objects", "w4_tree_rnn.py",
             [Timed("", 10.0,
                    flops="3 * 2 * (sum(tree_sizes) - num_trees) * embed_size * 2 * embed_size")],
             peers=["torch", "torchscript"]),
    Workload("W5", "2-D heat stencil 1024x1024, float64", "w5_heat_stencil.py",
             [Timed("", 6.0, flops="6 * steps * (n - 2)**2",
                    bytes="2 * 8 * steps * n * n")],
             peers=["numba", "numexpr"]),
    Workload("W6", "pure-Python cell (kernel overhead)", "w6_pure_python.py",
             [Timed("", 0.97, metric="wall")]),
    Workload("W7", "re-run training-epoch cell", "w7_rerun_epoch.py",
             [Timed("", 3.0,
                    flops="3 * 2 * n_samples * (n_features * n_hidden + n_hidden * n_classes)")]),
]


def select(only):
    if not only:
        return list(WORKLOADS)
    wanted = {w.strip().upper() for w in only.split(",") if w.strip()}
    unknown = wanted - {w.id for w in WORKLOADS}
    if unknown:
        raise SystemExit(f"unknown workloads: {', '.join(sorted(unknown))}")
    return [w for w in WORKLOADS if w.id in wanted]
