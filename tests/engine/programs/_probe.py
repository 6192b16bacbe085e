"""What a differential program records, for the engine-on/engine-off comparison.

A program does `from _probe import snapshot, call` and records values as it goes.
Every value is turned into plain JSON *at the moment it is recorded* (later
mutation cannot change the record), bit for bit: arrays by dtype, shape,
strides, flags, view offset and raw bytes; floats by their bits. At exit the
program module's globals and `specula.report()` are recorded too, and everything
is written to $SPECULA_PROBE_OUT for tests/engine/harness.py.

This module is deliberately plain Python that the engine should never compile:
it only runs at top level, between the calls under test.
"""

import atexit
import json
import os
import re
import struct
import sys
import traceback
import types

import numpy as np

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_INLINE_BYTES = 4096  # arrays larger than this are recorded by digest only
_events = []


def _program_globals():
    # The importing module is the first frame outside importlib's machinery.
    frame = sys._getframe(2)  # 0 is this function, 1 is this module's body
    while frame is not None and frame.f_code.co_filename.startswith("<frozen"):
        frame = frame.f_back
    return frame.f_globals if frame is not None else {}


_program = _program_globals()
# The global np.random stream starts from a fixed seed, so that programs which do
# not seed it are still comparable between runs.
np.random.seed(20190226)
_program_name = _program.get("__name__", "__main__")


def strip_addresses(text):
    """Object addresses differ between runs; nothing else may."""
    return _ADDRESS.sub("0x?", text)


def _float_bits(x):
    return struct.pack("<d", x).hex()


class _Describer:
    """One snapshot: turns a value into JSON, recording object identity.

    Mutable objects seen twice in one snapshot are recorded as a reference to the
    path where they were first seen, so aliasing (`a is b`, a view's base) is part
    of the record.
    """

    def __init__(self):
        self.seen = {}
        self.keep = []  # keeps described objects alive so ids stay unique

    def __call__(self, value, path="$"):
        if value is None or isinstance(value, (bool, str)):
            return value
        if type(value) is int:
            return {"int": str(value)}
        if type(value) is float:
            return {"float": repr(value), "bits": _float_bits(value)}
        if type(value) is complex:
            return {"complex": [_float_bits(value.real), _float_bits(value.imag)]}
        if isinstance(value, bytes):
            return {"bytes": value.hex()}
        if isinstance(value, np.generic) and not isinstance(value, np.object_):
            return {"npscalar": type(value).__name__, "dtype": value.dtype.str,
                    "bits": value.tobytes().hex(), "repr": repr(value)}
        if isinstance(value, types.ModuleType):
            return {"module": value.__name__}
        key = id(value)
        if key in self.seen:
            return {"same_object_as": self.seen[key]}
        self.seen[key] = path
        self.keep.append(value)
        return self._object(value, path)

    def _object(self, value, path):
        if isinstance(value, np.ndarray):
            return self._array(value, path)
        if isinstance(value, (list, tuple)):
            items = [self(v, f"{path}[{i}]") for i, v in enumerate(value)]
            return {type(value).__name__: items, "type": _type_name(value)}
        if isinstance(value, dict):
            return {"dict": [[self(k, f"{path}.key{i}"), self(v, f"{path}[{i}]")]
                             for i, (k, v) in enumerate(value.items())],
                    "type": _type_name(value)}
        if isinstance(value, (set, frozenset)):
            return {"set": sorted(json.dumps(self(v, f"{path}{{}}"), sort_keys=True)
                                  for v in value), "type": _type_name(value)}
        if isinstance(value, BaseException):
            return {"exception": _type_name(value), "str": strip_addresses(str(value)),
                    "args": self(value.args, path + ".args")}
        if isinstance(value, (types.FunctionType, types.LambdaType)):
            return self._function(value, path)
        if isinstance(value, type):
            return self._class(value, path)
        if isinstance(value, np.random.RandomState):
            return {"RandomState": self(value.get_state(), path + ".state")}
        if isinstance(value, np.random.Generator):
            return {"Generator": self(value.bit_generator.state, path + ".state")}
        if isinstance(value, types.GeneratorType):
            return {"generator": value.__qualname__, "finished": value.gi_frame is None}
        return self._instance(value, path)

    def _array(self, a, path):
        out = {"ndarray": _type_name(a), "dtype": a.dtype.str, "descr": str(a.dtype.descr),
               "shape": list(a.shape), "strides": list(a.strides),
               "c_contiguous": a.flags.c_contiguous, "f_contiguous": a.flags.f_contiguous,
               "writeable": a.flags.writeable, "owndata": a.flags.owndata}
        if a.dtype.hasobject:
            out["items"] = [self(v, f"{path}.flat[{i}]") for i, v in enumerate(a.ravel(order="C"))]
        else:
            raw = np.ascontiguousarray(a).tobytes()
            out["bytes"] = raw.hex() if len(raw) <= _INLINE_BYTES else _digest(raw)
        if a.base is not None:
            out["base"] = self(a.base, path + ".base")
            if isinstance(a.base, np.ndarray):
                out["offset_in_base"] = (a.__array_interface__["data"][0]
                                         - a.base.__array_interface__["data"][0])
        if type(a) is not np.ndarray and hasattr(a, "__dict__"):
            out["attrs"] = self(dict(vars(a)), path + ".__dict__")
        return out

    def _function(self, f, path):
        out = {"function": f.__qualname__, "module": f.__module__}
        if f.__defaults__:
            out["defaults"] = self(f.__defaults__, path + ".__defaults__")
        if f.__kwdefaults__:
            out["kwdefaults"] = self(f.__kwdefaults__, path + ".__kwdefaults__")
        if f.__closure__:
            cells = []
            for i, cell in enumerate(f.__closure__):
                try:
                    cells.append(self(cell.cell_contents, f"{path}.cell{i}"))
                except ValueError:
                    cells.append("<empty cell>")
            out["closure"] = cells
        return out

    def _class(self, cls, path):
        out = {"class": cls.__qualname__, "module": cls.__module__}
        if cls.__module__ == _program_name:
            # Class-level state written by hot code is part of the program's state.
            attrs = {k: v for k, v in vars(cls).items()
                     if not k.startswith("__") and not callable(v)
                     and not isinstance(v, (staticmethod, classmethod, property))}
            out["attrs"] = self(attrs, path + ".__dict__")
        return out

    def _instance(self, obj, path):
        out = {"object": _type_name(obj)}
        if hasattr(obj, "__dict__") and isinstance(obj.__dict__, dict):
            out["attrs"] = self(dict(obj.__dict__), path + ".__dict__")
        slots = [s for c in type(obj).__mro__ for s in getattr(c, "__slots__", ())]
        if slots:
            out["slots"] = {s: self(getattr(obj, s, "<unset>"), f"{path}.{s}") for s in slots}
        if "attrs" not in out and "slots" not in out:
            out["repr"] = strip_addresses(repr(obj))
        return out


def _type_name(value):
    t = type(value)
    return f"{t.__module__}.{t.__qualname__}"


def _digest(raw):
    import hashlib
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def describe(value):
    return _Describer()(value)


def describe_exception(exc):
    """Type, message, args and the traceback's frames below the probe."""
    frames = [(os.path.basename(f.filename), f.lineno, f.name)
              for f in traceback.extract_tb(exc.__traceback__)]
    frames = [f for f in frames if f[0] != "_probe.py"]
    out = {"type": _type_name(exc), "str": strip_addresses(str(exc)),
           "args": describe(exc.args), "frames": frames}
    for link in ("__cause__", "__context__"):
        linked = getattr(exc, link)
        if linked is not None:
            out[link] = {"type": _type_name(linked), "str": strip_addresses(str(linked))}
    return out


def snapshot(name, value):
    """Record `value` (deeply, as it is now) under `name`."""
    _events.append({"snapshot": name, "value": describe(value)})


def call(name, fn, *args, **kwargs):
    """Call fn, record its return value or the exception it raised.

    Returns the return value, or None after an exception (which is recorded,
    not propagated), so a program can keep going after an expected error.
    """
    try:
        result = fn(*args, **kwargs)
    except Exception as exc:  # KeyboardInterrupt is not ours to swallow
        _events.append({"call": name, "raised": describe_exception(exc)})
        return None
    _events.append({"call": name, "returned": describe(result)})
    return result


def _program_state():
    names = {k: v for k, v in _program.items()
             if not (k.startswith("__") and k.endswith("__"))
             and not isinstance(v, types.ModuleType) and v is not sys.modules[__name__]}
    # np.random's global state: a speculation must not consume (or skip) draws.
    names["<np.random global state>"] = np.random.get_state()
    return describe(names)


def _report():
    if "specula" not in sys.modules:
        return {"error": "specula was not imported"}
    try:
        return sys.modules["specula"].report()
    except Exception as exc:  # recorded; the harness says what went wrong
        return {"error": f"report() raised {type(exc).__name__}: {exc}"}


def _write_record():
    target = os.environ.get("SPECULA_PROBE_OUT")
    if not target:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    record = {"events": _events, "globals": None, "report": None}
    try:
        record["globals"] = _program_state()
    except Exception as exc:  # a bug here must show, not vanish
        record["globals"] = {"probe_error": f"{type(exc).__name__}: {exc}"}
    record["report"] = _report()
    with open(target, "w") as f:
        json.dump(record, f, default=lambda o: {"unserialisable": strip_addresses(repr(o))})


atexit.register(_write_record)
