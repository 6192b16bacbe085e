// The rest of a stable loop in chunks: once the per-iteration graph of a
// `for` loop over a `range` (or sequences: loop_sequences.hpp) ran
// `stable_iterations` iterations in a row, the
// next K iterations run as one graph (converter/loop_chunk.cpp: the body in
// an IR LOOP) and commit together; the range iterator CPython holds is then
// advanced past them and the target bound to the last value, so CPython goes
// on at the right iteration. K doubles while chunks pass, capped by the graph
// time a chunk may take (an interrupt waits for the chunk to end). A chunk
// that fails (an assert, a value NumPy would raise on) commits nothing; its
// iterations are then run one by one through the per-iteration graph, which
// falls back to CPython at exactly the failing iteration. The steps every
// chunk goes through are chunk_steps.hpp's; a `while` loop's chunks are
// while_chunks.hpp's.
#pragma once

#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/cost_verdict.hpp"
#include "engine/int_expr.hpp"
#include "engine/loop_sequences.hpp"

namespace specula::engine
{
    struct region_record;
    struct specialisation;
    class loop_locals;
    namespace converter
    {
        struct loop_chunk_plan;
    }

    // Per loop region: the chunk graph and what the report says about it.
    struct loop_chunk_record
    {
        std::string target; // the `for` loop's target name ("": none, or a `while` loop)
        // A tuple target's names in order (`for w, b in layers`; `target`
        // then reads "(w, b)"); empty for one name.
        std::vector<std::string> parts;
        std::shared_ptr<specialisation> spec;
        // How `spec`'s chunks are sized: a multiple of a period (names
        // trading arrays, converter/chunk_swaps.cpp), iterations whose
        // counter-computed slices are the rows the graph reads
        // (converter/chunk_slices.cpp).
        std::shared_ptr<const converter::loop_chunk_plan> plan;
        // The size the next chunk of a later run of the loop starts at (the
        // last one that passed; 0: the first size).
        std::int64_t next_k = 0;
        std::int64_t chunks = 0;       // chunk runs committed
        std::int64_t iterations = 0;   // iterations they ran
        std::int64_t failures = 0;     // chunk runs that failed (replayed)
        std::int64_t guard_misses = 0; // entries whose chunk graph's guards failed
        std::int64_t compiles = 0;
        double time_s = 0.0; // total time of the committed chunk runs
        // Seconds per iteration of the committed chunks of a steady size
        // (chunk_steps.cpp, judge_chunks), without the chunk graph's
        // conversion and compile, judged against what an iteration costs
        // without chunks (chunks slower than it are refused).
        call_samples per_iteration;
        // Wall time of whole iterations the per-iteration graph ran, from
        // one iteration's start to the next one's (the entry, the graph, the
        // commit and CPython's loop step: what a chunk stands for).
        call_samples iteration_wall;
        // The body's `if`s on the counter alone (cell_loops.counter_tests):
        // leaf source p = the value of the target's p-th name (of `target`
        // for one name), and the sides `spec` assumes.
        std::vector<int_expr_ptr> tests;
        std::vector<std::string> counters; // the names the tests may read
        bool tests_known = false;
        std::vector<bool> sides;
        std::string reason; // why the loop runs no (more) chunks
        bool refused = false;
        // A `while` loop's test (its AST; null for a `for` loop): such a
        // loop runs in chunks too (while_chunks.hpp).
        pybind11::object while_test;
        // Whether the loop may run in chunks at all: a `for` loop with a
        // target the engine can bind, or a `while` loop.
        bool chunkable() const { return !target.empty() || static_cast<bool>(while_test); }
    };

    // Where a running loop is: the iterator CPython's `for` holds.
    struct loop_cursor
    {
        pybind11::object iter; // the iterator (null: no chunks)
        // A loop over sequences (loop_sequences.hpp; empty: a range): one
        // stream per name, or one list of tuples the names unpack.
        std::vector<loop_stream> streams;
        bool unpacks = false;
        std::size_t names = 1;          // how many names the target binds
        std::string why;                // why this iterable runs no chunks ("": no reason known)
        PyFrameObject* frame = nullptr; // borrowed, identity only: the frame that started it
        long long start = 0;
        long long step = 1;
        long long len = 0;
        std::int64_t streak = 0; // per-iteration graph runs in a row
        std::int64_t replay = 0; // iterations left to run one by one after a failed chunk
        std::int64_t next_k = 0; // the next chunk's size (0: the record's)
        // The latest iteration's start, and whether it ran as one graph
        // iteration (not a chunk): loop_chunk_record::iteration_wall.
        std::chrono::steady_clock::time_point entered{};
        bool one_graph = false;
        bool chunked = false;
    };

    namespace loop_chunks
    {
        inline constexpr std::int64_t stable_iterations = 8;
        // Once a chunk of the loop passed, in any run: a loop run again (a
        // cell run again) chunks after this many graph iterations in a row
        // (one: the names the body binds hold a full iteration's values).
        inline constexpr std::int64_t stable_after_chunks = 1;
        // The graph time one chunk may take (an interrupt is seen after it).
        inline constexpr double chunk_budget_s = 0.004;

        // `__specula_iter__(id, iterable)` at a live loop's start: a new
        // reference to iter(iterable), or null with CPython's exception.
        // A `range` or sequences (loop_sequences::record) are recorded in
        // `cur` (for chunks); `names`: how many names the target binds.
        PyObject* start(loop_cursor& cur, PyObject* iterable, std::size_t names);

        // Counter `if`s (loop_counter_tests.cpp): learns the body's tests on
        // the names whose values are ints, once per loop.
        void learn_counter_tests(region_record& rec, const loop_cursor& cur);

        // The values the target's names take `j` iterations after the
        // current one (`value`: a range's int; a loop over sequences reads
        // its streams), one per name (null: no value there).
        std::vector<pybind11::object> values_at(const region_record& rec, const loop_cursor& cur,
                                                long long value, std::int64_t j);

        // The sides the counter tests take at `values`; false when one
        // cannot be evaluated exactly.
        bool sides_at(const loop_chunk_record& c, const std::vector<pybind11::object>& values,
                      std::vector<bool>& sides);

        enum class chunk_exit
        {
            not_run, // run the iteration as before (nothing changed)
            ran,     // K iterations committed, the iterator and target advanced
            fail,    // exception set (interrupt, failed write-back)
        };

        // After a per-iteration entry: whether it ran as a graph.
        void after_iteration(loop_cursor& cur, bool graph);

        // Tries the iterations from the current one on as one chunk. A loop
        // in a function passes its locals (values in rec.loop_locals' order)
        // and their writer; a cell loop passes nulls.
        chunk_exit run(region_record& rec, loop_cursor& cur, PyObject* globals, PyObject* builtins,
                       PyCodeObject* code, PyObject* const* locals, loop_locals* writer);
    } // namespace loop_chunks
} // namespace specula::engine
