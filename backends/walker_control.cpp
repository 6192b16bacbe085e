// Control flow of the walk (walker.hpp): IF runs one region; LOOP runs its
// body per the IR's conventions (trip count and/or condition, carried values,
// iteration counter, an interrupt check per trip); CALL runs the callee graph
// in a fresh activation, up to max_call_depth.

#include "backends/executor.hpp"
#include "backends/interrupt.hpp"
#include "backends/walker.hpp"

#include <algorithm>
#include <string>

namespace specula::backends::walk
{
    // Region results become the node's outputs (handles are shared; the
    // arena will not overwrite bytes an output still holds).
    void walker::take_results(frame& f, const ir::node& n, ir::region_id r, std::size_t skip)
    {
        const auto& results = f.p_graph->p_graph->get_region(r).results;
        for (std::size_t i = 0; i < n.outputs.size(); ++i)
        {
            f.values()[n.outputs[i]].assign(f.values()[results[i + skip]]);
        }
    }

    status walker::run_if(frame& f, const ir::node& n)
    {
        const bool cond = f.values()[n.inputs[0]].element_as_int(0) != 0;
        const ir::region_id r = n.regions[cond ? 0 : 1];
        if (status st = run_region(f, r); !st)
        {
            return st;
        }
        take_results(f, n, r, 0);
        return status::ok();
    }

    // The loop head: iteration-scoped symbols are forgotten, then the
    // carried values bind them afresh (and must fit the argument types).
    status walker::check_carried(frame& f, const compiled_node& cn, const ir::region& body)
    {
        symbol_table& symbols = f.p_arena->symbols;
        for (std::int32_t s : cn.m_loop_symbols)
        {
            symbols.forget(s);
        }
        const ir::graph& g = *f.p_graph->p_graph;
        for (std::size_t i = 1; i < body.args.size(); ++i)
        {
            if (status st = symbols.bind(g.type_of(body.args[i]), f.values()[body.args[i]]); !st)
            {
                return status::invalid("loop (node " + std::to_string(cn.p_node->id) +
                                       ") carried value " + std::to_string(i - 1) + ": " +
                                       st.message());
            }
        }
        return status::ok();
    }

    status walker::set_counter(frame& f, ir::value_id arg, std::int64_t it)
    {
        auto counter = f.p_arena->acquire(arg, ir::dtype::int64, {});
        if (!counter)
        {
            return counter.error();
        }
        *reinterpret_cast<std::int64_t*>(counter->data()) = it;
        f.values()[arg] = std::move(counter.value());
        return status::ok();
    }

    status walker::run_loop(frame& f, const compiled_node& cn)
    {
        const ir::node& n = *cn.p_node;
        const auto& attr = n.attr_as<ir::loop_attr>();
        const ir::region& body = f.p_graph->p_graph->get_region(n.regions[0]);
        std::vector<buffer>& values = f.values();
        std::size_t next = 0;
        const std::int64_t trip =
            attr.has_trip_count ? values[n.inputs[next++]].element_as_int(0) : 0;
        bool cond = attr.has_condition ? values[n.inputs[next++]].element_as_int(0) != 0 : true;
        const std::size_t carried = n.inputs.size() - next;
        for (std::size_t i = 0; i < carried; ++i)
        {
            values[body.args[i + 1]].assign(values[n.inputs[next + i]]);
        }
        for (std::size_t i : cn.m_owned_carried)
        {
            // A table updated in place (mark_carried_updates): its initial
            // value copied into memory nobody else holds, reused run after run.
            buffer& arg = values[body.args[i + 1]];
            if (status st = f.p_arena->own_copy(body.args[i + 1], arg, arg); !st)
            {
                return st;
            }
        }
        const std::size_t skip = attr.has_condition ? 1 : 0;
        // A trip that hands one carried argument on as another's result
        // (`a, b = b, a` in the body) needs a parallel assignment: the
        // results are read before any argument is overwritten.
        bool passes_args = false;
        for (std::size_t i = 0; i < carried; ++i)
        {
            const ir::value_id r = body.results[i + skip];
            passes_args = passes_args ||
                          std::find(body.args.begin() + 1, body.args.end(), r) != body.args.end();
        }
        std::vector<buffer> next_args(passes_args ? carried : 0);
        for (std::int64_t it = 0;; ++it)
        {
            if (status st = check_carried(f, cn, body); !st)
            {
                return st;
            }
            if ((attr.has_trip_count && it >= trip) || !cond)
            {
                break;
            }
            // A trip count only the data decides may never end.
            if (interrupt_requested())
            {
                return {status_code::interrupted, "loop (node " + std::to_string(n.id) + ")"};
            }
            if (status st = set_counter(f, body.args[0], it); !st)
            {
                return st;
            }
            if (status st = run_region(f, body.id); !st)
            {
                return st;
            }
            if (attr.has_condition)
            {
                cond = values[body.results[0]].element_as_int(0) != 0;
            }
            if (passes_args)
            {
                for (std::size_t i = 0; i < carried; ++i)
                {
                    next_args[i] = values[body.results[i + skip]];
                }
                for (std::size_t i = 0; i < carried; ++i)
                {
                    values[body.args[i + 1]] = std::move(next_args[i]);
                }
                continue;
            }
            for (std::size_t i = 0; i < carried; ++i)
            {
                // A table updated in place is its own result: no count.
                values[body.args[i + 1]].assign(values[body.results[i + skip]]);
            }
        }
        for (std::size_t i = 0; i < n.outputs.size(); ++i)
        {
            values[n.outputs[i]].assign(values[body.args[i + 1]]);
        }
        return status::ok();
    }

    status walker::run_call(frame& f, const compiled_node& cn)
    {
        const ir::node& n = *cn.p_node;
        if (f.depth + 1 > max_call_depth)
        {
            return status::runtime("call depth above " + std::to_string(max_call_depth));
        }
        const compiled_graph* callee = cn.p_callee;
        std::vector<buffer> args;
        args.reserve(n.inputs.size());
        for (ir::value_id v : n.inputs)
        {
            args.push_back(f.values()[v]);
        }
        arena_lease lease(*callee);
        frame inner{callee, &lease.get(), &args, f.depth + 1};
        if (status st = run_graph(inner); !st)
        {
            return st;
        }
        const std::vector<buffer>& outs = lease.get().outputs;
        for (std::size_t i = 0; i < n.outputs.size() && i < outs.size(); ++i)
        {
            f.values()[n.outputs[i]] = outs[i];
        }
        return status::ok();
    }
} // namespace specula::backends::walk
