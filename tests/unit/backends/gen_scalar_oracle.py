"""NumPy 1.24's answers for array-vs-Python-scalar binary ops (value-based casting).

One case per (op, array dtype, scalar, side): `f32_array < 0.1` computes in float32,
`int8_array + 300` in int16, `uint8_array < -1` in int16, and so on. The scalar is
written as a 0-d array whose dtype says its Python kind (bool -> bool, int -> int64,
float -> float64); param 0 is the side (0: array op scalar, 1: scalar op array).
Cases NumPy computes outside the IR's dtypes (uint8 + 300 -> uint16, int8 * 0.5 ->
float16) are written with "error": the IR must refuse them too.
"""

import sys
import warnings

import numpy as np

from gen_graph_oracle import BINARY
from gen_kernel_oracle import DTYPES, values
from oracle_format import case_writer

# Scalars where value-based casting decides the loop dtype: small and large ints,
# negative ints against unsigned arrays, floats that round in float32, huge floats.
SCALARS = [True, False, 0, 1, 3, -1, 100, 127, 128, 300, -129, 40000, 2**31, -(2**40),
           0.1, -2.5, 1e-8, 3.4e38, 1e300, float("nan"), float("inf")]
ULP = {"pow"}


def compute(f, a, s, side):
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = np.asarray(f(a, s) if side == 0 else f(s, a))
    except (TypeError, ValueError, OverflowError):
        return None
    return r if r.dtype.name in DTYPES else None


def main():
    w = case_writer(sys.argv[1])
    rng = np.random.default_rng(20240612)
    for name, f in BINARY.items():
        for dt in DTYPES:
            a = values(rng, dt, (7,))
            for s in SCALARS:
                as_0d = np.array(s, dtype=bool if isinstance(s, bool) else
                                 np.int64 if isinstance(s, int) else np.float64)
                if isinstance(s, int) and not isinstance(s, bool) and abs(s) >= 2**63:
                    continue
                for side in (0, 1):
                    r = compute(f, a, s, side)
                    tol = "ulp2" if name in ULP and r is not None and r.dtype.kind == "f" \
                        else "exact"
                    w.write("pyscalar", name, tol, [side], [a, as_0d], r)
    w.close()
    print(f"{w.m_count} cases")


if __name__ == "__main__":
    main()
