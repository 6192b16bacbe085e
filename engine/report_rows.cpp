// specula.report(): one dict per region that was ever hot, with the contract
// keys (engine/README.md, "Contracts") and the cost verdicts of its
// specialisations. Cold: built on demand.
#include <algorithm>
#include <optional>

#include "engine/engine_core.hpp"
#include "engine/introspection.hpp"
#include "engine/specialisation.hpp"

namespace specula::engine
{
    namespace
    {
        py::object seconds_or_none(std::optional<double> s)
        {
            return s ? py::object(py::float_(*s)) : py::object(py::none());
        }

        const char* verdict_of(const specialisation& s)
        {
            if (s.fallback_only && s.cost->verdict != cost_verdict::cpython)
            {
                return "not_convertible";
            }
            return verdict_name(s.cost->verdict);
        }

        py::dict specialisation_row(const specialisation& s)
        {
            const spec_cost& c = *s.cost;
            py::dict d;
            d["situation"] = situation_of(s);
            d["verdict"] = verdict_of(s);
            d["graph_runs"] = s.runs;
            d["cpython_calls"] = c.cpython.count();
            d["graph_median_s"] = seconds_or_none(c.graph.median_s());
            d["cpython_median_s"] = seconds_or_none(c.cpython.median_s());
            d["time_saved_s"] = seconds_or_none(c.time_saved_s());
            // The medians are per call, or per tree node for a recursion over
            // trees (cost_verdict.hpp).
            d["cost_unit"] = c.unit;
            d["cost_losses"] = c.losses;
            d["retry_after_calls"] =
                c.on_probation() && s.exe
                    ? py::object(
                          py::int_(std::max<std::int64_t>(0, c.retry_at - c.cpython.count())))
                    : py::object(py::none());
            d["reason"] =
                s.fallback_only ? py::object(py::str(s.fallback_reason)) : py::object(py::none());
            return d;
        }

        // The sum over the specialisations whose saving is known; none when
        // no specialisation has both medians yet.
        std::optional<double> region_time_saved(const region& r)
        {
            std::optional<double> total;
            const auto& specs = r.specialisations();
            for (std::size_t i = 0; i < specs.size(); ++i)
            {
                if (std::optional<double> saved = specs[i]->cost->time_saved_s())
                {
                    total = total.value_or(0.0) + *saved;
                }
            }
            return total;
        }
    } // namespace

    namespace
    {
        // A loop's chunks: how many ran, their iterations, the failed ones
        // (replayed one by one) and why the loop runs none (or no more).
        void add_chunk_fields(const region_record& rec, py::dict& d)
        {
            const loop_chunk_record& c = rec.chunk;
            d["chunks"] = c.chunks;
            d["chunk_iterations"] = c.iterations;
            d["chunk_failures"] = c.failures;
            d["chunk_guard_misses"] = c.guard_misses;
            d["chunk_time_s"] = c.time_s;
            std::string why =
                !c.chunkable()
                    ? "not a while loop nor a for loop with one target name or a tuple of names"
                    : c.reason;
            d["chunk_reason"] = why.empty() ? py::object(py::none()) : py::object(py::str(why));
        }
    } // namespace

    py::list engine_core::report() const
    {
        py::list out;
        for (const auto& rec : m_records)
        {
            const region& r = *rec->r;
            if (!r.ever_hot())
            {
                continue;
            }
            py::dict d;
            d["name"] = r.name();
            d["file"] = r.file();
            d["line"] = r.line();
            d["kind"] = rec->kind;
            d["state"] = state_name(r.state());
            d["graph_runs"] = r.counters().graph_runs;
            d["fallbacks"] = r.counters().fallbacks;
            d["guard_misses"] = r.counters().guard_misses;
            d["assert_failures"] = r.counters().assert_failures;
            d["reason"] = r.reason() ? py::object(py::str(*r.reason())) : py::object(py::none());
            d["compiles"] = r.counters().compiles;
            d["sunk_stores"] = r.counters().sunk_stores;
            d["cost_cpython_calls"] = r.counters().cost_cpython_calls;
            // Chunks of a loop are graph time too (loop_chunks.hpp).
            d["time_graph_s"] = r.timing().graph_s + rec->chunk.time_s;
            d["time_cpython_s"] = r.timing().cpython_s;
            d["time_compile_s"] = r.timing().compile_s;
            d["time_saved_s"] = seconds_or_none(region_time_saved(r));
            py::list specs;
            const auto& list = r.specialisations();
            for (std::size_t i = 0; i < list.size(); ++i)
            {
                specs.append(specialisation_row(*list[i]));
            }
            d["specialisations"] = specs;
            if (rec->cell_body && std::string(rec->kind) == "loop")
            {
                add_chunk_fields(*rec, d);
            }
            out.append(d);
        }
        return out;
    }
} // namespace specula::engine
