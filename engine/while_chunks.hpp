// The rest of a stable `while` loop in chunks. The transformer's marker sits
// at the top of the body, so CPython has evaluated the test as true for the
// iteration being entered: a chunk of at most K iterations is that
// iteration's body, then, for every further trip, the test evaluated in the
// graph (stopping when it is false) and the body again
// (converter/loop_chunk.cpp, converter/while_chunk.cpp: one IR LOOP with a
// trip count and a condition). The graph reports how many trips ran; the
// commit leaves the names their values after the last one, and the
// marker's `continue` lets CPython evaluate the test once more: false when
// the chunk stopped on it (CPython leaves the loop and runs `else:`), as
// CPython would find it after a chunk of K. So the converter takes only
// tests it evaluates in the graph without running user code or making an
// effect. Everything else (when a chunk starts, its size, failures replayed
// one by one, interrupts, the cost check, the report) is a `for` loop's
// (chunk_steps.hpp); there is no iterator to advance.
#pragma once

#include <Python.h>

#include "engine/loop_chunks.hpp"

namespace specula::engine::while_chunks
{
    // `__specula_loop_live__(id)` of a `while` loop: a new run of the loop
    // starts in the calling frame.
    void start(loop_cursor& cur);

    // Tries the iterations from the current one on as one chunk (the
    // arguments as loop_chunks::run's).
    loop_chunks::chunk_exit run(region_record& rec, loop_cursor& cur, PyObject* globals,
                                PyObject* builtins, PyCodeObject* code, PyObject* const* locals,
                                loop_locals* writer);
} // namespace specula::engine::while_chunks
