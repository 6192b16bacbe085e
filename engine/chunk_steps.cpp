#include "engine/chunk_steps.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

#include "engine/converter/converter.hpp"
#include "engine/engine_core.hpp"
#include "ir/printer.hpp"

namespace specula::engine::chunk_steps
{
    namespace
    {
        namespace py = pybind11;

        // A chunk graph whose guards keep failing is rebuilt this often.
        constexpr std::int64_t max_compiles = 4;
        // Chunks that keep failing cost their work twice: stop after this many.
        constexpr std::int64_t max_failures = 16;
        // A chunk of this many iterations stands for the loop's steady state
        // (its fixed costs spread over enough of them).
        constexpr std::int64_t judged_size = 16;

        // The chunk graph for this situation, compiled when missing or when
        // its guards fail (a bounded number of times).
        std::shared_ptr<specialisation> chunk_graph(region_record& rec,
                                                    const std::vector<sequence_items>& items,
                                                    const frame_hook::frame_view& view,
                                                    std::vector<PyObject*>& values,
                                                    owned_refs& owned)
        {
            guard_failure failure;
            if (rec.chunk.spec && check_guards(*rec.chunk.spec, view, values, owned, failure))
            {
                return rec.chunk.spec;
            }
            engine_core& core = engine_core::instance();
            if (rec.chunk.spec && failure.index != guards_interrupted)
            {
                ++rec.chunk.guard_misses;
                if (core.settings().dump.exits)
                {
                    std::cerr << "specula: " << rec.r->name() << ": chunk graph's "
                              << explain_failure(*rec.chunk.spec, failure, values) << "\n";
                }
            }
            if (failure.index == guards_interrupted || rec.chunk.compiles >= max_compiles)
            {
                return nullptr; // this entry runs one iteration; a later one may match
            }
            ++rec.chunk.compiles;
            converter::loop_chunk_scope scope;
            scope.file = rec.r->file();
            scope.target = rec.chunk.target;
            scope.in_function = rec.function_loop;
            scope.names = rec.function_loop ? rec.loop_names : rec.cell_names;
            scope.bound = rec.loop_bound;
            scope.locals = rec.loop_locals;
            scope.globals = rec.cell_names;
            scope.items = items;
            scope.parts = rec.chunk.parts;
            scope.while_test = rec.chunk.while_test;
            std::string diagnostic;
            py::list sides;
            for (bool b : rec.chunk.sides)
            {
                sides.append(py::bool_(b));
            }
            py::list counters;
            for (const std::string& name : rec.chunk.counters)
            {
                counters.append(py::str(name));
            }
            // A `for` loop's body with its counter `if`s decided (the run
            // checks every iteration of a chunk takes these sides); a
            // `while` loop's as it is, its test evaluated after every trip.
            py::object body =
                rec.chunk.while_test
                    ? rec.cell_body
                    : py::module_::import("specula.cell_loops")
                          .attr("resolve_counter_tests")(rec.cell_body, counters, sides);
            auto plan = std::make_shared<converter::loop_chunk_plan>();
            std::shared_ptr<specialisation> spec;
            {
                converter::converter conv(view, rec.prof, core.whitelist_table(), core.settings());
                spec = conv.convert_loop_chunk(body, scope, diagnostic, *plan);
            }
            if (!spec && !plan->item_writes.empty())
            {
                // Arrays updated in place through list items: carried by
                // source (converter/chunk_items.cpp), on a converter of its own.
                scope.item_sources = plan->item_writes;
                converter::converter conv(view, rec.prof, core.whitelist_table(), core.settings());
                spec = conv.convert_loop_chunk(body, scope, diagnostic, *plan);
            }
            if (!spec)
            {
                if (core.settings().dump.exits)
                {
                    std::cerr << "specula: " << rec.r->name() << ": no chunks: " << diagnostic
                              << "\n";
                }
                refuse(rec, diagnostic);
                return nullptr;
            }
            spec->globals = py::reinterpret_borrow<py::object>(view.globals);
            if (core.settings().dump.ir)
            {
                std::cerr << "specula: chunks of " << rec.r->name() << "\n"
                          << ir::print(*spec->module) << "\n";
            }
            rec.chunk.spec = spec;
            rec.chunk.plan = plan;
            if (!check_guards(*spec, view, values, owned, failure))
            {
                return nullptr;
            }
            return spec;
        }

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
        void judge_chunks(region_record& rec, std::int64_t k, std::int64_t next_k,
                          double per_iteration)
        {
            constexpr std::int64_t chunk_samples = 3;
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

        void chunk_failed(region_record& rec, loop_cursor& cur, std::int64_t k, const char* why)
        {
            ++rec.chunk.failures;
            cur.replay = k;
            cur.streak = 0;
            cur.next_k = first_chunk;
            rec.chunk.next_k = first_chunk;
            if (engine_core::instance().settings().dump.exits)
            {
                std::cerr << "specula: " << rec.r->name() << ": chunk of " << k
                          << " iterations failed (" << why << "), replayed one by one\n";
            }
            if (rec.chunk.failures >= max_failures)
            {
                refuse(rec, std::string("chunks failed ") + std::to_string(max_failures) +
                                " times (last: " + why + ")");
            }
        }
    } // namespace

    void refuse(region_record& rec, std::string why)
    {
        rec.chunk.refused = true;
        rec.chunk.reason = std::move(why);
        rec.chunk.spec.reset();
    }

    bool may_start(region_record& rec, loop_cursor& cur)
    {
        const auto now = clock::now();
        if (cur.one_graph)
        {
            rec.chunk.iteration_wall.add(std::chrono::duration<double>(now - cur.entered).count());
        }
        cur.entered = now;
        cur.one_graph = false;
        cur.chunked = false;
        const std::int64_t stable = rec.chunk.chunks > 0 ? loop_chunks::stable_after_chunks
                                                         : loop_chunks::stable_iterations;
        return !rec.chunk.refused && cur.streak >= stable && cur.replay == 0 &&
               rec.r->state() == region_state::compiled && PyEval_GetFrame() == cur.frame;
    }

    std::int64_t next_size(const region_record& rec, loop_cursor& cur)
    {
        if (cur.next_k == 0)
        {
            cur.next_k = rec.chunk.next_k > 0 ? rec.chunk.next_k : first_chunk;
        }
        return cur.next_k;
    }

    std::shared_ptr<specialisation> graph(region_record& rec,
                                          const std::vector<sequence_items>& items,
                                          const frame_hook::frame_view& view,
                                          std::vector<PyObject*>& values, owned_refs& owned,
                                          loop_chunks::chunk_exit& exit)
    {
        exit = loop_chunks::chunk_exit::not_run;
        std::shared_ptr<specialisation> spec;
        try
        {
            spec = chunk_graph(rec, items, view, values, owned);
        }
        catch (py::error_already_set& e)
        {
            if (!e.matches(PyExc_Exception))
            {
                e.restore(); // the user's interrupt, in conversion: raised here
                exit = loop_chunks::chunk_exit::fail;
                return nullptr;
            }
            refuse(rec, std::string("no chunks: conversion raised ") + e.what());
            return nullptr;
        }
        if (PyErr_Occurred())
        {
            exit =
                loop_chunks::chunk_exit::fail; // the user's interrupt, in a lookup the guards ran
            return nullptr;
        }
        return spec;
    }

    bool passed(region_record& rec, loop_cursor& cur, std::int64_t k, const specialisation& spec,
                const run_report& rep, loop_chunks::chunk_exit& exit)
    {
        exit = loop_chunks::chunk_exit::not_run;
        switch (rep.outcome)
        {
        case run_outcome::done:
            return true;
        case run_outcome::interrupted:
        case run_outcome::commit_error:
            exit = loop_chunks::chunk_exit::fail; // nothing committed, or CPython's error
            return false;
        case run_outcome::assert_exit:
            chunk_failed(rec, cur, k, spec.exit_reasons.at(rep.exit_id).c_str());
            return false;
        case run_outcome::numpy_raises:
        case run_outcome::failed:
        case run_outcome::left_to_cpython:
            chunk_failed(rec, cur, k, rep.message.c_str());
            return false;
        }
        return false;
    }

    void committed(region_record& rec, loop_cursor& cur, std::int64_t k, std::int64_t trips,
                   const run_report& rep, clock::time_point started, clock::time_point ran_from)
    {
        const auto now = clock::now();
        const double seconds = std::chrono::duration<double>(now - started).count();
        ++rec.chunk.chunks;
        rec.chunk.iterations += trips;
        rec.chunk.time_s += seconds;
        // graph_runs counts the iterations graphs ran.
        rec.r->record_graph_run(rep.sunk_stores);
        for (std::int64_t i = 1; i < trips; ++i)
        {
            rec.r->record_graph_run();
        }
        cur.chunked = true;
        const double per_iteration =
            std::chrono::duration<double>(now - ran_from).count() / static_cast<double>(trips);
        if (trips < k)
        {
            // A `while` loop that ended inside the chunk: no size to learn
            // from, but enough trips still stand for its steady state (a loop
            // shorter than one chunk is judged too).
            if (trips >= judged_size)
            {
                judge_chunks(rec, trips, trips, per_iteration);
            }
            return;
        }
        const auto fits =
            static_cast<std::int64_t>(loop_chunks::chunk_budget_s / std::max(per_iteration, 1e-9));
        cur.next_k = std::clamp<std::int64_t>(std::min(2 * k, fits), 2, max_chunk);
        rec.chunk.next_k = cur.next_k;
        judge_chunks(rec, k, cur.next_k, per_iteration);
    }
} // namespace specula::engine::chunk_steps
