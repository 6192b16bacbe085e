// Entry guards: what a specialisation assumed about its sources. check() is
// the hot path (raw pointers, no allocation, no refcount traffic); explain()
// is cold and builds the reason the report shows.
#pragma once

#include <Python.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/int_expr.hpp"

namespace specula::engine
{
    namespace py = pybind11;

    enum class guard_kind
    {
        type_is,     // type(x) is T (exactly)
        identity,    // x is O (functions, modules, None, bools, module attributes)
        array_meta,  // exact ndarray: dtype, rank, dims (static or symbolic), layout
        int_value,   // exact int equal to a value that fits in 64 bits
        float_value, // exact float with the same bits
        str_value,   // exact str equal to a value
        no_overlap,  // the memory of arrays `a` and `b` does not overlap
        distinct,    // `a` is not `b`
        int_range,   // exact int (not bool) in [int_value, int_hi]: a relaxed int
        length,      // exact list/tuple with int_value items (unpacking, iteration)
        // `expr` over relaxed ints evaluates (Python semantics) to a value
        // whose truth is int_value: a branch on a loop counter (int_expr.hpp)
        int_predicate,
        // exact dict whose keys are `expected` (a tuple of exact str/int), in
        // that order: iteration over a dict source unrolled over its keys
        dict_keys,
        // the memory of arrays `a` and `b` overlaps: a situation the engine
        // leaves to CPython (a write to one read through the other)
        overlap,
        // `a` is `b`: a name bound to an item a loop run in chunks carries
        // by source (converter/chunk_items.cpp)
        same,
    };

    inline constexpr int max_symbols = 16;

    struct guard
    {
        guard_kind kind = guard_kind::type_is;
        int src = -1;                   // the source checked (or `a` for two-source guards)
        int other = -1;                 // `b` for no_overlap / distinct
        py::object expected;            // type, object or value
        PyObject* p_expected = nullptr; // borrowed from `expected`
        // array_meta
        int type_num = 0;
        std::vector<std::int64_t> dims; // >= 0 static size, < 0 symbol (-1 - id)
        bool writeable = false;
        // NumPy's C_CONTIGUOUS flag as seen: the graph's reductions and the
        // layout of its results were decided for this memory order.
        bool c_contiguous = true;
        // int/float values
        long long int_value = 0;
        long long int_hi = 0; // int_range: upper bound
        std::uint64_t float_bits = 0;
        int_expr_ptr expr; // int_predicate
        std::string what;  // the source path, for explain()
        mutable std::int64_t failures = 0;

        // `values` are the resolved sources (borrowed); `symbols` binds
        // symbolic dims for this call (initialised to -1).
        bool check(PyObject* const* values, std::int64_t* symbols) const;
        std::string explain(PyObject* const* values) const;
    };

    guard make_type_guard(int src, PyTypeObject* type, std::string what);
    guard make_identity_guard(int src, PyObject* object, std::string what);
    // Borrowed `array`; `symbolic[i]` >= 0 makes dim i that symbol.
    guard make_array_guard(int src, PyObject* array, const std::vector<int>& symbolic,
                           bool writeable, std::string what);
    guard make_value_guard(int src, PyObject* value, std::string what);
    guard make_int_range_guard(int src, long long lo, long long hi, std::string what);
    // A list can change length between calls (and a different tuple can be
    // passed): unpacking and unrolled iteration assumed this many items.
    guard make_length_guard(int src, long long length, std::string what);
    // The branch on `expr` (its leaves' sources resolved first) goes the
    // way it went at conversion: `taken`.
    guard make_int_predicate_guard(int_expr_ptr expr, bool taken);
    // Borrowed `dict`; its keys must be exact str or int (compared without user code).
    guard make_dict_keys_guard(int src, PyObject* dict, std::string what);
    guard make_no_overlap_guard(int a, int b, std::string what);
    guard make_distinct_guard(int a, int b, std::string what);
    guard make_overlap_guard(int a, int b, std::string what);
    guard make_same_guard(int a, int b, std::string what);

    // Whether the bytes two arrays span intersect (borrowed; non-arrays:
    // identity).
    bool arrays_overlap(PyObject* x, PyObject* y);

    // Whether `a` and `b` assume the same thing of the same sources (an
    // overlap or identity guard of `x / y` is the one of `y / x`). Cold.
    bool same_guard(const guard& a, const guard& b);

    // Guards per source (checked right after the source resolves, so a child
    // source is only read from a guarded parent) and across sources.
    struct guard_set
    {
        std::vector<std::vector<guard>> per_source;
        std::vector<guard> cross;

        // Adds `g` unless an equal guard (same_guard) is there already: the
        // converter reads a source once per use (every inlined call, every
        // unrolled iteration) and asks for its guard every time. The first
        // one keeps its place, so the order of checks is the order of reads.
        void add(guard g);
        // Moves the guard that just failed to the front of its list, so the
        // one that fails most runs first. Returns where that guard is now
        // (a failure explained later must name it, not the one swapped in).
        std::size_t promote(int source, std::size_t index);
        std::size_t count() const;
        std::string dump() const;
    };
} // namespace specula::engine
