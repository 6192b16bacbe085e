// The walk (walker.hpp): regions in program order, boundary ops, asserts and
// kernel nodes (inputs gathered and staged, outputs acquired from the arena or
// a caller's destination, the kernel run). This is the per-op hot path, kept
// in one file so it stays inlined.

#include "backends/walker.hpp"

#include "backends/executor.hpp"
#include "backends/run_shapes.hpp"

#include <string>

namespace specula::backends::walk
{
    status walker::run_graph(frame& f)
    {
        const ir::graph& g = *f.p_graph->p_graph;
        f.p_arena->outputs.assign(f.p_graph->m_outputs.size(), buffer{});
        if (f.p_inputs->size() != f.p_graph->m_inputs.size())
        {
            return status::invalid("graph '" + g.name() + "' takes " +
                                   std::to_string(f.p_graph->m_inputs.size()) + " inputs, got " +
                                   std::to_string(f.p_inputs->size()));
        }
        return run_region(f, g.body());
    }

    status walker::run_region(frame& f, ir::region_id r)
    {
        for (const compiled_node& cn : f.p_graph->m_regions[r])
        {
            if (status st = run_node(f, cn); !st)
            {
                return st;
            }
        }
        return status::ok();
    }

    status walker::run_node(frame& f, const compiled_node& cn)
    {
        const ir::node& n = *cn.p_node;
        switch (n.code)
        {
        case ir::op::INPUT:
        case ir::op::PARAM:
            return bind_input(f, n);
        case ir::op::OUTPUT:
            f.p_arena->outputs[static_cast<std::size_t>(n.attr_as<ir::boundary_attr>().index)] =
                f.values()[n.inputs[0]];
            return status::ok();
        case ir::op::ASSERT:
            return run_assert(f, n);
        case ir::op::IF:
            return run_if(f, n);
        case ir::op::LOOP:
            return run_loop(f, cn);
        case ir::op::CALL:
            return run_call(f, cn);
        default:
            return run_kernel(f, cn);
        }
    }

    status walker::bind_input(frame& f, const ir::node& n)
    {
        const auto index = static_cast<std::size_t>(n.attr_as<ir::boundary_attr>().index);
        const buffer& b = (*f.p_inputs)[index];
        const ir::value_type& want = f.p_graph->p_graph->type_of(n.outputs[0]);
        if (status st = f.p_arena->symbols.bind(want, b); !st)
        {
            return status::invalid("input " + std::to_string(index) + ": " + st.message());
        }
        f.values()[n.outputs[0]] = b;
        return status::ok();
    }

    status walker::run_assert(frame& f, const ir::node& n)
    {
        if (f.values()[n.inputs[0]].element_as_int(0) != 0)
        {
            return status::ok();
        }
        const auto& a = n.attr_as<ir::assert_attr>();
        const std::string& graph = f.p_graph->p_graph->name();
        m_exit = assert_exit{a.exit_id, a.reason, graph, n.id};
        return status(status_code::assert_failed, "exit " + std::to_string(a.exit_id) + " (node " +
                                                      std::to_string(n.id) + " of graph '" + graph +
                                                      "'): " + a.reason);
    }

    status walker::gather_inputs(frame& f, const compiled_node& cn)
    {
        std::vector<const buffer*>& ins = f.p_arena->scratch_inputs;
        ins.clear();
        for (ir::value_id v : cn.m_inputs)
        {
            const buffer& b = f.values()[v];
            if (b.is_null())
            {
                // Never a crash: a plan that freed a live value is a bug
                // to report, and the region falls back.
                return status::internal("value " + std::to_string(v) +
                                        " read after its buffer was reused");
            }
            ins.push_back(&b);
        }
        return stage_inputs(f, cn);
    }

    // Arena views are C-contiguous by construction; anything else
    // (a graph input, a view) the kernel may not read in its layout.
    status walker::stage_inputs(frame& f, const compiled_node& cn)
    {
        std::vector<const buffer*>& ins = f.p_arena->scratch_inputs;
        bool ensured = false;
        for (std::size_t i = 0; i < ins.size(); ++i)
        {
            const buffer& b = *ins[i];
            if (b.is_arena_view() || cn.m_kernel->reads_layout(static_cast<int>(i), b))
            {
                continue;
            }
            if (!ensured)
            {
                f.p_arena->ensure_staging(ins.size());
                ensured = true;
            }
            if (status st = f.p_arena->stage(i, cn.m_inputs[i], b); !st)
            {
                return st;
            }
            ins[i] = &f.p_arena->staged[i];
        }
        return status::ok();
    }

    status walker::run_kernel(frame& f, const compiled_node& cn)
    {
        const ir::node& n = *cn.p_node;
        if (n.outputs.size() > 1)
        {
            return status::unimplemented("kernels with several outputs");
        }
        if (status st = gather_inputs(f, cn); !st)
        {
            return st;
        }
        if (p_targets != nullptr && f.depth == 0 && hold_back(f, cn))
        {
            return status::ok();
        }
        std::vector<buffer*>& outs = f.p_arena->scratch_outputs;
        outs.clear();
        for (std::size_t i = 0; i < cn.m_outputs.size(); ++i)
        {
            buffer& out = f.values()[cn.m_outputs[i]];
            outs.push_back(&out);
            if (cn.m_carried_arg != ir::no_id)
            {
                out.assign(f.values()[cn.m_carried_arg]); // the loop's own copy
                continue;
            }
            if (!cn.m_allocates_outputs)
            {
                if (status st = acquire_output(f, cn, i, out); !st)
                {
                    return st;
                }
            }
        }
        const std::vector<const buffer*>& ins = f.p_arena->scratch_inputs;
        kernel_io io{ins.data(), static_cast<int>(ins.size()), outs.data(),
                     static_cast<int>(outs.size())};
        status st;
        if (!cn.m_row_move || !move_row(cn, io, st))
        {
            st = cn.m_kernel->run(io);
        }
        if (!st)
        {
            return status(st.code(), std::string(ir::mnemonic(n.code)) + " (node " +
                                         std::to_string(n.id) + "): " + st.message());
        }
        if (cn.m_in_place != ir::no_id)
        {
            f.values()[cn.m_in_place].reset(); // dead by the plan; its bytes are the output's
        }
        return status::ok();
    }

    status walker::acquire_output(frame& f, const compiled_node& cn, std::size_t i, buffer& out)
    {
        const ir::node& n = *cn.p_node;
        const ir::graph& g = *f.p_graph->p_graph;
        const ir::value_id v = cn.m_outputs[i];
        const ir::dtype elem = g.type_of(v).elem;
        if (cn.m_static_outputs)
        {
            if (!f.p_arena->sunk.empty() && sink(f, v, elem, cn.m_output_shapes[i], out))
            {
                return status::ok();
            }
            return f.p_arena->acquire_static(out, v, elem, cn.m_output_bytes[i],
                                             cn.m_output_layouts[i], cn.m_in_place);
        }
        if (cn.m_outputs.size() > 1)
        {
            return status::unimplemented("run-time shapes of kernels with several outputs");
        }
        auto sizes = resolve_output_shape(g, n, f.p_arena->scratch_inputs);
        if (!sizes)
        {
            return sizes.error();
        }
        if (sink(f, v, elem, sizes.value(), out))
        {
            return status::ok();
        }
        return f.p_arena->acquire_into(out, v, elem, sizes.value(), cn.m_in_place);
    }

    // A graph output with caller memory waiting for it is written there
    // directly. The plan never runs anything in place over a graph
    // output, so nothing later in the run writes these bytes.
    bool walker::sink(frame& f, ir::value_id v, ir::dtype elem,
                      const std::vector<std::int64_t>& shape, buffer& out)
    {
        const std::vector<int>& sinks = f.p_arena->sink_of;
        if (v >= sinks.size() || sinks[v] < 0)
        {
            return false;
        }
        const buffer& d = (*f.p_arena->destinations)[static_cast<std::size_t>(sinks[v])];
        if (d.dtype() != elem || d.shape() != shape)
        {
            return false; // the copy at the end will report the mismatch
        }
        out = d;
        return true;
    }
} // namespace specula::backends::walk
