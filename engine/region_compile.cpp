// Converting a region for the situation at hand and installing the
// result (engine_core::compile_and_run), and the tests' injected cost
// timings that every new specialisation receives.
#include <chrono>
#include <iostream>

#include "engine/converter/converter.hpp"
#include "engine/engine_core.hpp"
#include "engine/introspection.hpp"
#include "ir/printer.hpp"

namespace specula::engine
{
    using frame_hook::frame_exit;

    namespace
    {
        // float32 is the one dtype whose kernels the numerics mode chooses
        // (DESIGN.md, "Numerics policy").
        bool depends_on_numerics(const ir::module& m)
        {
            for (const std::string& name : m.names())
            {
                const ir::graph& g = *m.find(name);
                for (std::size_t v = 0; v < g.num_values(); ++v)
                {
                    if (g.type_of(static_cast<ir::value_id>(v)).elem == ir::dtype::float32)
                    {
                        return true;
                    }
                }
            }
            return false;
        }

        void apply_injection(const region_record::cost_injection& inj, specialisation& spec)
        {
            if (situation_of(spec).find(inj.match) != std::string::npos)
            {
                // Judged afresh, on the injected times only.
                const char* unit = spec.cost->unit;
                *spec.cost = spec_cost{};
                spec.cost->unit = unit;
                spec.cost->injected_graph_s = inj.graph_s;
                spec.cost->injected_cpython_s = inj.cpython_s;
            }
        }

        void apply_injections(const region_record& rec, specialisation& spec)
        {
            for (const auto& inj : rec.cost_injections)
            {
                apply_injection(inj, spec);
            }
        }
    } // namespace

    std::size_t engine_core::inject_cost(const std::string& name, const std::string& match,
                                         double graph_s, double cpython_s)
    {
        std::size_t regions = 0;
        for (const auto& rec : m_records)
        {
            if (rec->r->name() != name)
            {
                continue;
            }
            rec->cost_injections.push_back({match, graph_s, cpython_s});
            auto& specs = rec->r->specialisations();
            for (std::size_t i = 0; i < specs.size(); ++i)
            {
                apply_injection(rec->cost_injections.back(), *specs[i]);
            }
            ++regions;
        }
        return regions;
    }

    frame_exit engine_core::compile_and_run(region_record& rec, const frame_hook::frame_view& frame,
                                            PyObject** result, bool first)
    {
        region& r = *rec.r;
        r.record_compile();
        note_engine_work();
        const auto started = std::chrono::steady_clock::now();
        std::string diagnostic;
        auto convert = [&](converter::converter& c)
        {
            if (rec.function_loop)
            {
                converter::function_loop_scope scope{rec.loop_names, rec.loop_locals,
                                                     rec.cell_names, rec.loop_bound};
                return c.convert_function_loop(rec.cell_body, scope, diagnostic);
            }
            return rec.cell_body
                       ? c.convert_cell_body(rec.cell_body, r.file(), rec.cell_names, diagnostic)
                       : c.convert(diagnostic);
        };
        converter::converter conv(frame, rec.prof, m_whitelist, m_config);
        std::shared_ptr<specialisation> spec = convert(conv);
        std::unique_ptr<converter::converter> again;
        if (!spec && rec.prof.pin_relaxed_dims())
        {
            if (m_config.dump.exits)
            {
                std::cerr << "specula: " << r.name() << ": static dims again: " << diagnostic
                          << "\n";
            }
            again = std::make_unique<converter::converter>(frame, rec.prof, m_whitelist, m_config);
            diagnostic.clear();
            spec = convert(*again);
        }
        if (!spec && rec.prof.pin_relaxed())
        {
            if (m_config.dump.exits)
            {
                std::cerr << "specula: " << r.name()
                          << ": specialised on values again: " << diagnostic << "\n";
            }
            // A relaxed int or dim reached a use that needs its value (a range,
            // a branch, array arithmetic, .shape): specialise on it again.
            again = std::make_unique<converter::converter>(frame, rec.prof, m_whitelist, m_config);
            diagnostic.clear();
            spec = convert(*again);
        }
        r.record_compile_time(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        const converter::converter& last = again ? *again : conv;
        if (!spec)
        {
            if (first && !last.situational())
            {
                r.mark_not_convertible(diagnostic);
                return frame_exit::run_default;
            }
            std::shared_ptr<specialisation> fallback = last.partial();
            if (!fallback->trees.empty())
            {
                // A recursion over a tree: what failed may be in the tree,
                // which guards do not describe. Nothing is remembered.
                r.record_fallback(diagnostic);
                return frame_exit::run_default;
            }
            // Remember that calls like this one stay in CPython.
            fallback->fallback_only = true;
            fallback->fallback_reason = diagnostic;
            fallback->globals = py::reinterpret_borrow<py::object>(frame.globals);
            r.specialisations().push_front(fallback);
            r.record_fallback(diagnostic);
            if (first)
            {
                r.mark_compiled(); // other situations still compile
            }
            return frame_exit::run_default;
        }
        spec->globals = py::reinterpret_borrow<py::object>(frame.globals);
        spec->numerics_dependent = depends_on_numerics(*spec->module);
        if (!spec->trees.empty())
        {
            spec->cost->unit = "tree node"; // work_units()
        }
        apply_injections(rec, *spec);
        if (m_config.dump.ir)
        {
            std::cerr << "specula: " << r.name() << " (" << r.file() << ":" << r.line() << ")\n"
                      << ir::print(*spec->module) << "\n";
        }
        if (m_config.dump.guards)
        {
            std::cerr << "specula: guards of " << r.name() << "\n" << spec->guards.dump();
        }
        if (m_config.dump.cache)
        {
            std::cerr << "specula: " << r.name() << ": " << r.specialisations().size() + 1
                      << " specialisation(s)\n";
        }
        r.specialisations().push_front(spec);
        if (first)
        {
            r.mark_compiled();
        }
        return run_compiled(rec, frame, result);
    }
} // namespace specula::engine
