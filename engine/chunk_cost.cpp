// The cost check of a loop's chunks (loop_chunks.hpp): the time per
// iteration of committed chunks of a steady size against what an iteration
// costs without chunks; chunks slower than that stop for the loop.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include "engine/engine_core.hpp"
#include "engine/loop_chunks.hpp"
#include "engine/specialisation.hpp"

namespace specula::engine
{
    namespace
    {
        // The one-iteration graph the chunks stand for: the loop's
        // specialisation with the most graph runs (the most recent one may
        // be an exception, the first iteration or a short last batch).
        const spec_cost* steady_graph(const region_record& rec)
        {
            const spec_cost* best = nullptr;
            const auto& specs = rec.r->specialisations();
            for (std::size_t i = 0; i < specs.size(); ++i)
            {
                const spec_cost* cost = specs[i]->cost.get();
                if (cost != nullptr &&
                    (best == nullptr || cost->graph.count() > best->graph.count()))
                {
                    best = cost;
                }
            }
            return best;
        }

        // What one iteration costs without chunks: the median of whole
        // iterations the per-iteration graph ran (marker to marker: a chunk
        // saves the entry, the commit and CPython's loop step of each one, so
        // the graph's own samples would understate it), or while fewer were
        // timed, that graph's median.
        std::optional<double> one_iteration_s(const region_record& rec)
        {
            constexpr std::int64_t wall_samples = 3;
            const auto& specs = rec.r->specialisations();
            for (std::size_t i = 0; i < specs.size(); ++i)
            {
                if (specs[i]->cost && specs[i]->cost->injected_graph_s)
                {
                    return specs[i]->cost->injected_graph_s; // the tests' fixed cost
                }
            }
            if (rec.chunk.iteration_wall.count() >= wall_samples)
            {
                return rec.chunk.iteration_wall.median_s();
            }
            const spec_cost* steady = steady_graph(rec);
            return steady != nullptr ? steady->graph.median_s() : std::nullopt;
        }

        // A chunk saves the per-iteration entry, but its LOOP may cost more
        // per trip than one graph per iteration (a carried array copied each
        // trip): after a few chunks of a steady size, slower than the
        // one-iteration graph's median by the cost check's margin, chunks
        // stop for this loop. A chunk's fixed costs (guards, per-iteration
        // checks, copying the carried arrays in and out) are spread over its
        // iterations, so only chunks that stand for the loop's steady state
        // are judged: `judged_size` iterations or more, or as many as the
        // time budget lets the next one run (K no longer grows); not the
        // first small ones, nor one cut short by the loop's end.
    } // namespace

    namespace loop_chunks
    {
        void judge_chunks(region_record& rec, std::int64_t k, std::int64_t next_k,
                          double per_iteration)
        {
            constexpr std::int64_t chunk_samples = 3;
            constexpr std::int64_t judged_size = 16;
            constexpr double slower = 1.25;
            if (k < judged_size && next_k > k)
            {
                return;
            }
            rec.chunk.per_iteration.add(per_iteration);
            const engine_core& core = engine_core::instance();
            if (!core.settings().cost_check || rec.chunk.per_iteration.count() < chunk_samples)
            {
                return;
            }
            const std::optional<double> chunk = rec.chunk.per_iteration.median_s();
            const std::optional<double> one = one_iteration_s(rec);
            if (!chunk || !one || *chunk <= slower * *one)
            {
                return;
            }
            char text[160];
            std::snprintf(text, sizeof text,
                          "chunks slower than one graph per iteration (%.3g ms vs %.3g ms per "
                          "iteration)",
                          *chunk * 1e3, *one * 1e3);
            refuse(rec, text);
            if (core.settings().dump.exits)
            {
                std::cerr << "specula: " << rec.r->name() << ": " << text << "\n";
            }
        }

    } // namespace loop_chunks
} // namespace specula::engine
