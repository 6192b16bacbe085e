#include "engine/engine_core.hpp"

#include <chrono>
#include <iostream>

#include "engine/branch_tracer.hpp"
#include "engine/converter/converter.hpp"
#include "engine/introspection.hpp"
#include "engine/loop_region.hpp"
#include "engine/numpy_api.hpp"
#include "engine/py_errors.hpp"
#include "engine/runner.hpp"
#include "ir/printer.hpp"

namespace specula::engine
{
    using frame_hook::frame_exit;

    engine_core& engine_core::instance()
    {
        // Never destroyed: code objects may outlive any static destructor.
        static engine_core* core = new engine_core();
        return *core;
    }

    engine_core::engine_core() : m_config(config_from_environment()) {}

    std::size_t engine_core::set_numerics(numerics_mode mode)
    {
        if (mode == m_config.numerics)
        {
            return 0;
        }
        m_config.numerics = mode;
        std::size_t dropped = 0;
        for (const auto& rec : m_records)
        {
            rec->chunk.spec.reset(); // rebuilt under the new mode
            auto& specs = rec->r->specialisations();
            bool had_some = !specs.empty();
            for (std::size_t i = specs.size(); i-- > 0;)
            {
                if (specs[i]->numerics_dependent)
                {
                    specs.erase(i);
                    ++dropped;
                }
            }
            rec->recompile_pending = had_some && specs.empty();
        }
        return dropped;
    }

    namespace
    {
        // What one call of `spec` is worth for its cost verdict: the nodes of
        // the trees its recursions walked (check_guards just walked them;
        // trees of one situation differ in size), or one call.
        double work_units(const specialisation& spec)
        {
            std::int64_t nodes = 0;
            for (const auto& t : spec.trees)
            {
                nodes += t->last.nodes;
            }
            return nodes > 0 ? static_cast<double>(nodes) : 1.0;
        }
    } // namespace

    void engine_core::reset()
    {
        // A freed code object never calls back into its record again.
        std::vector<std::unique_ptr<region_record>> kept;
        for (auto& rec : m_records)
        {
            if (!rec->r->code_alive())
            {
                continue;
            }
            rec->r->reset(rec->cell_body ? loop_region::loop_config(m_config) : m_config);
            rec->prof.clear();
            rec->recompile_pending = false;
            rec->cost_injections.clear();
            loop_chunk_record fresh;
            fresh.target = rec->chunk.target;
            fresh.parts = rec->chunk.parts;
            rec->chunk = std::move(fresh);
            kept.push_back(std::move(rec));
        }
        m_records = std::move(kept);
        loop_region::reset_all();
    }

    const region_record* engine_core::find(const std::string& name, const std::string& file,
                                           int line) const
    {
        const region_record* best = nullptr;
        auto better = [&best](const region_record& rec)
        { return best == nullptr || rec.r->code_alive() || !best->r->code_alive(); };
        for (const auto& rec : m_records)
        {
            const region& r = *rec->r;
            bool match = false;
            if (!name.empty())
            {
                std::size_t dot = r.name().rfind('.');
                match = r.name() == name ||
                        (dot != std::string::npos && r.name().substr(dot + 1) == name);
            }
            else
            {
                match = r.file() == file && r.line() <= line &&
                        (best == nullptr || best->r->file() != file || r.line() >= best->r->line());
            }
            if (match && better(*rec))
            {
                best = rec.get();
            }
        }
        return best;
    }

    bool engine_core::is_library(const std::string& file) const
    {
        if (file.empty() || file[0] == '<')
        {
            return true;
        }
        for (const std::string& prefix : m_library_prefixes)
        {
            if (!prefix.empty() && file.rfind(prefix, 0) == 0)
            {
                return true;
            }
        }
        return file.find("/specula/") != std::string::npos &&
               file.find("/python/specula/") != std::string::npos;
    }

    hook_slot* engine_core::classify(PyCodeObject* code)
    {
        engine_core& self = instance();
        // Plain functions only: module bodies, class bodies, lambdas and
        // comprehensions stay with CPython.
        if ((code->co_flags & (CO_OPTIMIZED | CO_NEWLOCALS)) != (CO_OPTIMIZED | CO_NEWLOCALS))
        {
            return nullptr;
        }
        const char* name = PyUnicode_AsUTF8(code->co_name);
        const char* file = PyUnicode_AsUTF8(code->co_filename);
        if (name == nullptr || file == nullptr || name[0] == '<' || self.is_library(file))
        {
            PyErr_Clear();
            return nullptr;
        }
        auto rec = std::make_unique<region_record>();
        const char* qualname = PyUnicode_AsUTF8(code->co_qualname);
        rec->r = std::make_unique<region>(qualname != nullptr ? qualname : name, file,
                                          code->co_firstlineno, self.m_config);
        PyErr_Clear();
        rec->r->m_slot.owner = rec.get();
        hook_slot* slot = &rec->r->m_slot;
        self.m_records.push_back(std::move(rec));
        return slot;
    }

    void engine_core::release(hook_slot* slot)
    {
        auto* rec = static_cast<region_record*>(slot->owner);
        rec->r->mark_code_dead();
        rec->r->specialisations().clear();
        slot->countdown = never_again;
    }

    void engine_core::ran_default(hook_slot* slot, double seconds)
    {
        auto* rec = static_cast<region_record*>(slot->owner);
        if (rec->tracing)
        {
            rec->tracing = false;
            branch_tracer::end();
        }
        rec->r->record_cpython_time(seconds);
    }

    frame_exit engine_core::enter(hook_slot* slot, const frame_hook::frame_view& frame,
                                  PyObject** result)
    {
        return instance().enter_region(*static_cast<region_record*>(slot->owner), frame, result);
    }

    frame_exit engine_core::enter_region(region_record& rec, const frame_hook::frame_view& frame,
                                         PyObject** result)
    {
        if (!m_loaded && (!program_uses_numpy() || !load()))
        {
            return interrupt_pending() ? frame_exit::fail : frame_exit::run_default;
        }
        const std::uint64_t commits = commits_started();
        std::string why;
        try
        {
            return on_enter(rec, frame, result);
        }
        catch (py::error_already_set& e)
        {
            if (!e.matches(PyExc_Exception))
            {
                // The user's interrupt (or SystemExit), raised in the
                // engine's own Python work (conversion) or in user code it
                // ran (a dict key's __eq__): raised here, as it would have
                // been in CPython an instant later (before this entry's
                // commit, or just after it).
                Py_CLEAR(*result);
                e.restore();
                return frame_exit::fail;
            }
            why = e.what();
        }
        catch (const std::exception& e)
        {
            why = e.what();
        }
        rec.r->record_internal_error(why);
        if (commits_started() != commits)
        {
            // Committed: CPython must not run the call again (runner.hpp).
            Py_CLEAR(*result);
            if (!clear_error_unless_interrupt())
            {
                raise_after_commit(why);
            }
            return frame_exit::fail;
        }
        if (clear_error_unless_interrupt())
        {
            return frame_exit::fail;
        }
        return frame_exit::run_default;
    }

    region_record& engine_core::adopt(std::unique_ptr<region_record> rec)
    {
        m_records.push_back(std::move(rec));
        return *m_records.back();
    }

    frame_exit engine_core::on_enter(region_record& rec, const frame_hook::frame_view& frame,
                                     PyObject** result)
    {
        region& r = *rec.r;
        switch (r.state())
        {
        case region_state::cold:
        case region_state::profiling:
            // Observed, and traced while CPython runs it: not what a timed
            // call around this one should measure.
            note_engine_work();
            if (rec.cell_body)
            {
                observe_cell_globals(rec, frame);
            }
            else
            {
                rec.prof.observe_frame(frame);
            }
            if (!r.observe_profiling_call())
            {
                // Functions only: a loop body's region has no frame of its own.
                rec.tracing = !rec.cell_body && !rec.function_loop &&
                              branch_tracer::begin(frame.code, rec.prof);
                return frame_exit::run_default;
            }
            return compile_and_run(rec, frame, result, true);
        case region_state::compiled:
            return run_compiled(rec, frame, result);
        case region_state::not_convertible:
        case region_state::blacklisted:
            break;
        }
        return frame_exit::run_default;
    }

    frame_exit engine_core::run_compiled(region_record& rec, const frame_hook::frame_view& frame,
                                         PyObject** result)
    {
        region& r = *rec.r;
        r.expect_cpython_time(nullptr);
        // The whole speculative path is timed (guards, inputs, run, commit,
        // return value): that is what replaces the CPython call.
        auto start = std::chrono::steady_clock::now();
        auto& specs = r.specialisations();
        if (specs.empty() && rec.recompile_pending)
        {
            rec.recompile_pending = false;
            return compile_and_run(rec, frame, result, false);
        }
        guard_failure first_failure;
        std::vector<PyObject*> values;
        // The first specialisation's sources as its miss saw them (explained
        // below): kept, not read again, since reading runs user code a dict
        // key's __eq__ may hold, and counts the failing guard twice.
        std::vector<PyObject*> first_values;
        owned_refs first_owned;
        std::shared_ptr<specialisation> first = specs.empty() ? nullptr : specs[0];
        for (size_t i = 0; i < specs.size(); ++i)
        {
            std::shared_ptr<specialisation> spec = specs[i]; // keeps it alive if dropped
            owned_refs owned;
            guard_failure failure;
            if (!check_guards(*spec, frame, values, owned, failure))
            {
                if (failure.index == guards_interrupted)
                {
                    // The user's interrupt, raised in user code a lookup ran:
                    // nothing of this entry ran, so it raises here.
                    r.record_fallback("interrupted while its guards read the heap");
                    return frame_exit::fail;
                }
                if (i == 0)
                {
                    first_failure = failure;
                    if (failure.index >= 0)
                    {
                        first_failure.index = static_cast<int>(spec->guards.promote(
                            failure.source, static_cast<size_t>(failure.index)));
                    }
                    first_values = values;
                    for (PyObject* v : first_values)
                    {
                        Py_XINCREF(v); // the heap may change under later checks
                        first_owned.keep(v);
                    }
                }
                continue;
            }
            specs.move_to_front(i);
            const double units = work_units(*spec);
            if (spec->fallback_only && spec->exe && spec->cost->retry_due())
            {
                // A CPython verdict's probation is over: the graph's new trial.
                spec->cost->start_trial();
                spec->fallback_only = false;
            }
            if (spec->fallback_only)
            {
                if (spec->cost->verdict == cost_verdict::cpython)
                {
                    r.record_cost_cpython_call(spec->fallback_reason);
                    // Timed by the caller: the median of its situation.
                    r.expect_cpython_time(spec->cost, units);
                }
                else
                {
                    r.record_fallback(spec->fallback_reason);
                }
                return frame_exit::run_default;
            }
            if (spec->cost->wants_cpython_sample(r.settings()))
            {
                // Always correct; the caller times it for the cost verdict.
                r.expect_cpython_time(spec->cost, units);
                return frame_exit::run_default;
            }
            run_report rep = run_specialisation(*spec, values, result);
            switch (rep.outcome)
            {
            case run_outcome::done:
                r.record_graph_run(rep.sunk_stores);
                ++spec->runs;
                if (r.record_graph_time(
                        *spec->cost,
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                            .count(),
                        units))
                {
                    graph_lost(rec, *spec);
                }
                return frame_exit::run_compiled;
            case run_outcome::assert_exit:
            {
                std::int64_t n = ++spec->exit_failures[rep.exit_id];
                auto branch = spec->exit_branches.find(rep.exit_id);
                if (branch != spec->exit_branches.end())
                {
                    // The side (or trip count) profiled is not the only one:
                    // the next compile does not assume it.
                    rec.prof.branch_flipped(branch->second);
                }
                const std::string& why = spec->exit_reasons.at(rep.exit_id);
                if (m_config.dump.exits)
                {
                    std::cerr << "specula: " << r.name() << ": exit " << rep.exit_id << " (" << why
                              << ")\n";
                }
                if (r.record_assert_failure(why, n) && r.state() == region_state::compiled)
                {
                    specs.erase(0);
                }
                return frame_exit::run_default;
            }
            case run_outcome::numpy_raises:
                r.record_fallback("graph run: " + rep.message);
                return frame_exit::run_default;
            case run_outcome::left_to_cpython:
                r.record_fallback(rep.message);
                return frame_exit::run_default;
            case run_outcome::interrupted:
                r.record_fallback("interrupted during a graph run");
                return frame_exit::fail;
            case run_outcome::commit_error:
                r.record_fallback("commit failed");
                return frame_exit::fail;
            case run_outcome::failed:
                r.record_internal_error(rep.message);
                return frame_exit::run_default;
            }
        }
        // Every specialisation missed: relax what changed, then recompile.
        std::string why = "no specialisation";
        if (first)
        {
            why = explain_failure(*first, first_failure, first_values);
            // The sources the miss resolved (kept alive by first_owned) are
            // not read again; only those after the one that failed are.
            owned_refs seen_owned;
            std::vector<PyObject*> seen = first_values;
            const std::vector<int> failing = failing_sources(*first, frame, seen, seen_owned);
            if (PyErr_Occurred())
            {
                // The user's interrupt, raised in a key's __eq__ the second
                // read of the sources ran: raised here, nothing of it ran.
                r.record_fallback("interrupted while its guards read the heap");
                return frame_exit::fail;
            }
            for (int s : failing)
            {
                rec.prof.observe(first->sources[s].path, seen[static_cast<size_t>(s)]);
            }
        }
        if (m_config.dump.exits)
        {
            std::cerr << "specula: " << r.name() << ": " << why << "\n";
        }
        if (first_failure.index == -3)
        {
            // A tree that does not fit the recursion's walk (tree_inputs.hpp):
            // a new specialisation would walk it the same way.
            r.record_fallback(why);
            return frame_exit::run_default;
        }
        if (!r.record_guard_miss(why))
        {
            return frame_exit::run_default;
        }
        return compile_and_run(rec, frame, result, false);
    }

    void engine_core::graph_lost(region_record& rec, specialisation& spec)
    {
        region& r = *rec.r;
        // Calls in this situation run in CPython from now on, without
        // re-profiling or recompiling. On probation the executable stays for
        // the graph's next trial; at the last loss its memory goes.
        spec.fallback_only = true;
        spec.fallback_reason = spec.cost->reason;
        const bool probation = spec.cost->on_probation();
        if (!probation)
        {
            spec.exe.reset();
        }
        if (m_config.dump.exits)
        {
            std::cerr << "specula: " << r.name() << ": " << spec.cost->reason
                      << (probation ? " (graph tried again later)" : "") << "\n";
        }
        const auto& specs = r.specialisations();
        for (std::size_t i = 0; i < specs.size(); ++i)
        {
            if (!specs[i]->fallback_only || (specs[i]->exe && specs[i]->cost->on_probation()))
            {
                return; // another situation still runs, or may run again, as a graph
            }
        }
        r.blacklist_keeping_specialisations(spec.cost->reason);
    }

} // namespace specula::engine
