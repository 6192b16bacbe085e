// Chunks of a `for` loop over a list or tuple (loop_chunks.cpp runs them):
// where the loop is comes from the list or tuple iterator CPython's `for`
// holds, and the items a chunk's iterations bind are handed to its graph as
// one array stacked before the run (a column of Python floats or ints, or
// the arrays of one dtype and shape as rows). The graph reads row `counter`
// of it as the target (converter/chunk_sequences.cpp); the target CPython
// binds after the chunk is the list's own last item (the iterator is moved
// on as for a range).
#pragma once

#include <Python.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/py_ref.hpp"

namespace specula::engine
{
    struct loop_cursor;

    // What the items of a chunk are (all of one kind, checked per chunk).
    enum class sequence_items
    {
        none,   // not a loop over a list or tuple
        floats, // Python floats: a float64 column
        ints,   // Python ints in the relaxed int range: an int64 column
        arrays, // NumPy arrays of one dtype and shape (ndim >= 1): rows
    };

    namespace loop_sequences
    {
        // At a live loop's start: records an exact list or tuple iterated by
        // its own iterator `it` in `cur` (false: not such a loop).
        bool record(loop_cursor& cur, PyObject* iterable, PyObject* it);

        // A tuple target (`for w, b in layers`) unpacks each item: `part`
        // p >= 0 is its p-th name's value, -1 the item itself (one name).

        // Where the loop is: the index of the item the target holds now
        // (identity: the objects CPython bound, `bound` one per name of a
        // tuple target) and how many items follow it. False when the target
        // is not that item (the body rebound it, the list changed before the
        // position) or the iterator is exhausted.
        bool position(const loop_cursor& cur, const std::vector<PyObject*>& bound, bool unpacks,
                      long long& index, long long& remaining);

        // The item at `index` (borrowed; null past the end).
        PyObject* item(const loop_cursor& cur, long long index);

        // Part `part` of an item (borrowed; null when the item is not a tuple
        // of `parts` values).
        PyObject* part_of(PyObject* item, int part, std::size_t parts);

        // How many items from `index` on (at most `k`) are of the kinds of
        // the first one, as one chunk graph reads them; `kinds` says which,
        // one per part (`parts` names of a tuple target, 0 for one name).
        std::int64_t uniform(const loop_cursor& cur, long long index, std::int64_t k,
                             std::size_t parts, std::vector<sequence_items>& kinds);

        // Part `part` of the `k` items from `index` on stacked in a fresh
        // array (a new reference; null with an exception set).
        PyObject* stack(const loop_cursor& cur, long long index, std::int64_t k, int part,
                        std::size_t parts, sequence_items kind);

        // Whether an item array of the chunk shares memory with one of the
        // graph's other array inputs (`values`, skipping `stacked`): the graph
        // reads a copy of the items, so an array it also writes must not be
        // one of them.
        bool items_alias_inputs(const loop_cursor& cur, long long index, std::int64_t k,
                                std::size_t parts, const std::vector<PyObject*>& values);

        const char* describe(sequence_items kind);
    } // namespace loop_sequences
} // namespace specula::engine
