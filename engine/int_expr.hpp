// Python int expressions over graph sources: what a loop counter becomes when
// the engine must know a value derived from it before the graph runs. A list
// item chosen by `hs[t + 1]` is read before the run (sources.cpp,
// computed_item), and a branch on `step % 50 == 0` is decided by a guard on
// its outcome (guards.cpp, int_predicate), so the specialisation is keyed on
// the outcome, not on the counter's value. Evaluated with Python's semantics;
// anything Python would not give exactly (a non-int leaf, a zero divisor, a
// result beyond 62 bits) makes the evaluation fail, never wrap. `and`, `or`
// and `not` give the truth of Python's operators (a branch's outcome).
#pragma once

#include <Python.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>

namespace specula::engine
{
    struct int_expr
    {
        enum class kind
        {
            leaf,     // the exact int of source `src`
            length,   // len() of source `src`, an exact list, tuple or dict
            constant, // `value`
            add,
            sub,
            mul,
            mod,
            floordiv,
            eq,
            ne,
            lt,
            le,
            gt,
            ge,
            // Truth of Python's `and` / `or` / `not` (0 or 1); `and`/`or`
            // evaluate `b` only when `a` does not decide, as Python does.
            logical_and,
            logical_or,
            logical_not,
        };
        kind k = kind::constant;
        int src = -1;
        std::int64_t value = 0;
        std::shared_ptr<const int_expr> a;
        std::shared_ptr<const int_expr> b;
        // leaf: the object seen at conversion, so the converter can evaluate
        // the expression without the run's source values.
        pybind11::object seen;
        std::string text; // "t + 1": paths and explanations
    };

    using int_expr_ptr = std::shared_ptr<const int_expr>;

    int_expr_ptr int_leaf(int src, PyObject* seen, const std::string& path);
    int_expr_ptr int_length(int src, PyObject* seen, const std::string& path);
    int_expr_ptr int_constant(std::int64_t value);
    // `op` is the Python operator text ("+", "%", "==", ...); nullptr when
    // it has no int_expr form.
    // `op` may also be "and" / "or" (truth values).
    int_expr_ptr int_binary(const char* op, int_expr_ptr a, int_expr_ptr b);
    int_expr_ptr int_not(int_expr_ptr a);

    // Evaluates `e`; leaves read `values[src]` (borrowed), or the value seen
    // at conversion when `values` is null. False when Python's result is not
    // an int64 computed here exactly (never sets a Python exception).
    bool evaluate(const int_expr& e, PyObject* const* values, std::int64_t& out);
} // namespace specula::engine
