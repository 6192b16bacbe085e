"""Writer for the oracle case files the backend tests read (see oracle_reader.hpp).

One case per block of lines:
    case <kind> <op> <tolerance> <param count> <params...>
    in <dtype> <rank> <dims...> <hex bytes>      (one line per input)
    out <dtype> <rank> <dims...> <hex bytes>     (or: error)
    end
"""

import numpy as np


class case_writer:
    def __init__(self, path):
        self.m_file = open(path, "w")
        self.m_count = 0

    def close(self):
        self.m_file.close()

    @staticmethod
    def _array_line(tag, a):
        a = np.array(a, order="C", copy=True)
        dims = " ".join(str(d) for d in a.shape)
        return f"{tag} {a.dtype.name} {a.ndim} {dims} {a.tobytes().hex() or '-'}\n".replace("  ", " ")

    def write(self, kind, op, tolerance, params, inputs, expected):
        """expected: an ndarray, or None when NumPy raises."""
        params = [int(p) for p in params]
        lines = [f"case {kind} {op} {tolerance} {len(params)} {' '.join(map(str, params))}\n"]
        lines += [self._array_line("in", a) for a in inputs]
        lines.append("error\n" if expected is None else self._array_line("out", expected))
        lines.append("end\n")
        self.m_file.write("".join(lines))
        self.m_count += 1
