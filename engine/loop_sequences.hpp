// Chunks of a `for` loop over sequences (loop_chunks.cpp runs them): a list
// or tuple, `enumerate(seq)`, `zip(s1, s2, ...)` of ranges, lists and tuples,
// or the rows of an array. Where the loop is comes from the iterators
// CPython's `for` holds (loop_streams.cpp: each name of the target reads one
// "stream": an enumerate's count, a range's ints, a list's or tuple's items,
// an array's rows), and the values a chunk's iterations bind are handed to
// its graph as one array per name stacked before the run
// (loop_sequences.cpp: a column of Python floats or ints, the arrays of one
// dtype and shape as rows, or the array's rows themselves). The graph reads
// row `counter` of it as the name (converter/chunk_sequences.cpp); what
// CPython binds after the chunk is what the iterator gives (it is moved on
// as for a range).
#pragma once

#include <Python.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/py_ref.hpp"

#include <pybind11/pybind11.h>

namespace specula::engine
{
    struct loop_cursor;

    // What the values a name takes in a chunk are (all of one kind, checked
    // per chunk).
    enum class sequence_items
    {
        none,   // not a loop over a sequence
        floats, // Python floats: a float64 column
        ints,   // Python ints in the relaxed int range: an int64 column
        arrays, // NumPy arrays of one dtype and shape (ndim >= 1): rows
    };

    // One source of values of a loop over sequences, read by one name of the
    // target (or, for a list of tuples unpacked, by all of them).
    struct loop_stream
    {
        enum class kind
        {
            count, // an enumerate's count (`it`: the enumerate)
            range, // a range iterator's ints
            items, // a list's or tuple's items (`seq`)
            rows,  // the rows of a C-contiguous array (`seq`, ndim >= 2)
        };
        kind k = kind::items;
        pybind11::object it;  // the iterator it reads (count: the enumerate)
        pybind11::object seq; // the list, tuple or array (items, rows)
        // At the last position(): items and rows, the index of the value the
        // name holds; count and range, that value.
        long long at = 0;
        long long step = 1; // a range's step (count: 1)
    };

    namespace loop_sequences
    {
        // An array a chunk reads as one row of a stack (items) or whose rows
        // it reads (`min_ndim` 2): exact ndarray, a dtype the engine converts,
        // native, aligned and C-contiguous (NumPy's results follow their
        // operands' memory order, so another order would lay them out
        // differently).
        bool stackable(PyObject* o, int min_ndim);

        // At a live loop's start: records in `cur` the streams of an exact
        // list or tuple iterated by its own iterator `it`, of an exact
        // enumerate or zip of such iterators (and range iterators), or of
        // an exact ndarray's sequence iterator; `names` is the number of
        // names the target binds. False (with `cur.why` saying why when the
        // iterable is one of these kinds) when it is no such loop.
        bool record(loop_cursor& cur, PyObject* iterable, PyObject* it, std::size_t names);

        // Where the loop is: each stream's position (`at`), checked against
        // the values the names hold (`bound`, one per name: by identity for
        // items, by value for ints, a view of the row for rows), and how many
        // iterations follow (the fewest of the streams). False when a name is
        // not what its stream gave last (the body rebound it, the list changed
        // before the position) or the loop ended.
        bool position(loop_cursor& cur, const std::vector<PyObject*>& bound, long long& remaining);

        // Whether name `name`'s values are ints counter `if`s may test: an
        // enumerate's count, a range's, or a list's items read whole.
        bool counts(const loop_cursor& cur, std::size_t name);

        // The value name `name` takes `j` iterations after the current one
        // (null, no exception, past the end).
        pybind11::object value(const loop_cursor& cur, std::size_t name, std::int64_t j);

        // Part `part` of an item (borrowed; null when the item is not a tuple
        // of `parts` values; -1: the item itself).
        PyObject* part_of(PyObject* item, int part, std::size_t parts);

        // How many iterations from the current one on (at most `k`) give
        // every name values of the kind its first one has, as one chunk graph
        // reads them; `kinds` says which, one per name.
        std::int64_t uniform(const loop_cursor& cur, std::int64_t k,
                             std::vector<sequence_items>& kinds);

        // Name `name`'s values of the `k` iterations from the current one on,
        // stacked (a new reference: a fresh array, or a view of an array's
        // rows; null with an exception set).
        PyObject* stack(const loop_cursor& cur, std::int64_t k, std::size_t name,
                        sequence_items kind);

        // Whether an array the chunk's names take shares memory with one of
        // the graph's array inputs (`values`, the `stacks` themselves
        // skipped): the graph reads them before it runs (a copy, or the rows
        // of the array), so an array it writes must not be one of them.
        bool items_alias_inputs(const loop_cursor& cur, std::int64_t k,
                                const std::vector<PyObject*>& values,
                                const std::vector<PyObject*>& stacks);

        const char* describe(sequence_items kind);
    } // namespace loop_sequences
} // namespace specula::engine
