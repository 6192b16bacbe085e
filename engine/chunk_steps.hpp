// The steps every chunk of a stable loop goes through, shared by chunks of
// `for` loops (loop_chunks.cpp) and of `while` loops (while_chunks.cpp):
// whether a chunk may start at the iteration being entered (and that
// iteration's timing), the chunk graph found or built, the run's outcome
// (a failed chunk is replayed one by one) and the bookkeeping after a
// commit (the report, the next size, the cost judgement).
#pragma once

#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/frame_hook.hpp"
#include "engine/loop_chunks.hpp"
#include "engine/runner.hpp"

namespace specula::engine::chunk_steps
{
    using clock = std::chrono::steady_clock;

    inline constexpr std::int64_t first_chunk = 4;
    inline constexpr std::int64_t max_chunk = std::int64_t{1} << 16;

    // The loop runs no (more) chunks, for `why` (the report's chunk_reason).
    void refuse(region_record& rec, std::string why);

    // At every entry: ends the timing of the previous iteration when it
    // ran as one graph, starts this one's, and says whether a chunk may
    // start here (chunks not refused, enough graph iterations in a row, no
    // replay pending, the region compiled, the frame that started the loop).
    bool may_start(region_record& rec, loop_cursor& cur);

    // The size the next chunk asks for (the cursor's, or the record's last
    // one, or the first size).
    std::int64_t next_size(const region_record& rec, loop_cursor& cur);

    // The chunk graph for this situation, compiled when missing or when its
    // guards fail (a bounded number of times); `values` are its inputs.
    // Null when none runs now: `exit` then says whether an exception is set
    // (the user's interrupt) or the iteration runs as before.
    std::shared_ptr<specialisation> graph(region_record& rec,
                                          const std::vector<sequence_items>& items,
                                          const frame_hook::frame_view& view,
                                          std::vector<PyObject*>& values, owned_refs& owned,
                                          loop_chunks::chunk_exit& exit);

    // The run of a chunk of `k` iterations: true when it committed; else
    // `exit` says what the entry answers (a failed chunk is replayed one by
    // one, an interrupt is raised).
    bool passed(region_record& rec, loop_cursor& cur, std::int64_t k, const specialisation& spec,
                const run_report& rep, loop_chunks::chunk_exit& exit);

    // After the commit of a chunk that ran `trips` of the `k` iterations it
    // could run (`started`: the entry; `ran_from`: after the conversion and
    // compile): the report, the graph runs, the next size and the cost
    // judgement (only chunks of a steady size that ran all of theirs).
    void committed(region_record& rec, loop_cursor& cur, std::int64_t k, std::int64_t trips,
                   const run_report& rep, clock::time_point started, clock::time_point ran_from);
} // namespace specula::engine::chunk_steps
