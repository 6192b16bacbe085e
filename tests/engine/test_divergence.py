"""engine.divergence: the footguns of capture-and-replay, each proven not to happen.

A tracing JIT that records one run and replays it can diverge from eager execution
in the ways listed below (tinygrad keeps such a list of its own footguns). Specula
must never diverge: each entry names a program in programs/divergence/ that sets the
trap *after* the function has been compiled (at threshold 0 and at the default
threshold), and the test asserts that output, results, exceptions and final state
are exactly those of the engine-off run.

 1 baked-in global value           global_value.py (value, branch on it, deleted)
 2 baked-in closure value          closure_value.py (cell rebound via nonlocal)
 3 stale attribute reads           stale_attribute.py (rebound, mutated, deleted, read-after-write)
 4 mutated default arguments       mutated_default_arg.py (list/array defaults, __defaults__ swapped)
 5 aliasing between arguments      aliasing_arguments.py (x is y, reversed alias, appearing late)
 6 overlapping source/destination  overlap_out.py (out= and slice assignment over overlapping views)
 7 captured Python side effects    python_side_effects.py (append, print, iterator: every call)
 8 data-dependent control flow     data_dependent_branch.py (branch on array data flips)
 9 dtype promotion drift           promotion_drift.py (value-based casting, NumPy vs Python scalars)
10 reduction order                 reduction_order.py (pairwise sums, strided axes, float32)
11 float contraction (FMA)         fma_contraction.py (operands where fma differs)
12 integer overflow                int_overflow.py (Python ints never wrap, int64 wraps as NumPy)
13 object identity (`is`)          object_identity.py (returning arguments, in-place identity)
14 exceptions: partial effects,    exception_partial_effects.py (effects before raise kept,
   chaining and tracebacks         after it not; __cause__, frames)
15 print ordering                  print_ordering.py (sep/end/flush, print before a raise)
16 rebinding builtins              rebind_builtins.py (len/abs shadowed, builtins.print patched)
17 rebinding NumPy functions       rebind_numpy.py (np.dot, np.exp, the np global itself)
18 changing shapes                 changing_shapes.py (symbolic batch, rank change, empty, a.shape=)
19 non-contiguous and negative-    strided_views.py (same shape, different strides)
   stride views
20 read-only arrays                readonly_flip.py (writeable flag cleared, broadcast_to views)
21 subclasses, __array_ufunc__     array_ufunc_late.py (override and __array_wrap__ arriving late)
22 interrupts                      interrupts/interrupt_counter.py (all-or-nothing; shorter run here)
23 random streams replayed/skipped random_consumption.py (global stream, Generator, reseed)
24 array contents folded as        global_array_constant.py (global array mutated in place)
   constants
25 floating-point error state      errstate_change.py (np.seterr to raise after compilation)
26 class of an object swapped      class_reassignment.py (obj.__class__ =, method replaced)
27 container structure assumed     list_structure_change.py (list grows, dict keys change)
28 evaluation order of effects     argument_evaluation_order.py (side effects within one expression)
29 warnings shown once / filters   warnings_once.py (default once-per-location, filter changes)
30 dead work dropped               dead_work.py (unused float ops, int division, indexing: their
                                   warnings, FloatingPointError and IndexError stay)
31 descriptors arriving late       late_descriptor.py (a property / Python __get__ added to the
                                   class: the getter's effects once, its interrupt kept)
32 interrupts in user code the     interrupt_in_key_eq.py (a dict key arriving after compilation:
   engine's lookups run            its __eq__ run by the guards' lookups, the interrupt kept)
33 user code run by a conversion   print_formatter.py (a NumPy print formatter, then a string
                                   function, counting their calls while f-strings print
                                   arrays: none extra)
34 user hooks a conversion would  conversion_hooks.py (a metaclass __instancecheck__ arriving
   answer or run                   late, a __class__ property, a .dtype property: every call;
                                   a dict key's __eq__: none extra)
35 dtype arguments baked in by    dtype_byte_order.py (">f4" after "<f4": one type, one name)
   type or name
"""

import pytest

import harness
from test_interrupts import summary_of

FOOTGUNS = {
    "baked-in global value": "global_value.py",
    "baked-in closure value": "closure_value.py",
    "stale attribute reads": "stale_attribute.py",
    "mutated default arguments": "mutated_default_arg.py",
    "aliasing between arguments": "aliasing_arguments.py",
    "overlapping source and destination": "overlap_out.py",
    "captured Python side effects": "python_side_effects.py",
    "data-dependent control flow": "data_dependent_branch.py",
    "dtype promotion drift": "promotion_drift.py",
    "reduction order": "reduction_order.py",
    "float contraction (FMA)": "fma_contraction.py",
    "integer overflow": "int_overflow.py",
    "object identity": "object_identity.py",
    "exceptions: partial effects, chaining, tracebacks": "exception_partial_effects.py",
    "print ordering": "print_ordering.py",
    "rebinding builtins": "rebind_builtins.py",
    "rebinding NumPy functions": "rebind_numpy.py",
    "changing shapes": "changing_shapes.py",
    "non-contiguous and negative-stride views": "strided_views.py",
    "read-only arrays": "readonly_flip.py",
    "subclasses and __array_ufunc__ overrides": "array_ufunc_late.py",
    "random streams replayed or skipped": "random_consumption.py",
    "array contents folded as constants": "global_array_constant.py",
    "floating-point error state": "errstate_change.py",
    "class of an object swapped": "class_reassignment.py",
    "container structure assumed fixed": "list_structure_change.py",
    "evaluation order of side effects": "argument_evaluation_order.py",
    "warnings shown once, filters changed": "warnings_once.py",
    "dead work dropped with what it signals": "dead_work.py",
    "descriptors arriving late": "late_descriptor.py",
    "interrupts in user code the engine's lookups run": "interrupt_in_key_eq.py",
    "user code run by a conversion": "print_formatter.py",
    "user hooks a conversion would answer or run": "conversion_hooks.py",
    "dtype arguments baked in by type or name": "dtype_byte_order.py",
}
PROGRAMS = {p.name.split("/")[-1]: p for p in harness.programs("divergence")}
INTERRUPT_ROUNDS = "100"


@pytest.fixture(scope="module")
def results():
    return harness.run_suite("divergence", list(PROGRAMS.values()))


def test_every_program_is_a_listed_footgun():
    assert sorted(FOOTGUNS.values()) == sorted(PROGRAMS)


@pytest.mark.parametrize("footgun", FOOTGUNS)
def test_does_not_diverge(results, footgun):
    program = PROGRAMS[FOOTGUNS[footgun]]
    problems = harness.check_runs(program, results[program.name])
    assert not problems, f"footgun '{footgun}' diverges:\n" + "\n".join(problems)


@pytest.mark.parametrize("mode", ["off", "thr0"])
def test_interrupts_leave_no_partial_effects(mode):
    """Footgun 22, a shorter run of engine.interrupts' program."""
    program = harness.programs("interrupts")[0]
    run_ = harness.run(program, mode, {"SPECULA_INTERRUPT_ROUNDS": INTERRUPT_ROUNDS})
    assert not run_.problem, run_.problem
    summary = summary_of(run_)
    assert summary["lost_interrupts"] == 0 and summary["violation_count"] == 0, summary
