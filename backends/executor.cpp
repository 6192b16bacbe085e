// A run of an executable (executor.hpp): sets up destinations and effect
// targets, walks the graph (walker.hpp) and delivers the outputs; plus the
// compile-time run constants (resolve_run_layouts).

#include "backends/executor.hpp"

#include "backends/strided_copy.hpp"
#include "backends/walker.hpp"

#include <string>

namespace specula::backends
{
    namespace
    {
        // Constants are shared by every run, and a view reads memory another
        // value (maybe a graph input, maybe another output) owns: the caller
        // gets its own C-contiguous copy of either.
        result<buffer> publish(const buffer& b)
        {
            if (!b.is_read_only() && !b.is_view())
            {
                return b;
            }
            auto copy = buffer::allocate(b.dtype(), b.shape(), b.where());
            if (!copy)
            {
                return copy.error();
            }
            copy_to_contiguous(b, copy->data());
            return copy;
        }

        // Marks the values of the outputs that have a destination, so their
        // defining kernels write into it (the first output index wins for a
        // value that is output twice; the others are copied).
        void mark_sinks(const compiled_graph& g, const std::vector<buffer>& destinations, arena& a)
        {
            a.destinations = &destinations;
            const ir::graph& ig = *g.p_graph;
            for (ir::node_id id : g.m_outputs)
            {
                const ir::node& n = ig.get_node(id);
                const auto i = static_cast<std::size_t>(n.attr_as<ir::boundary_attr>().index);
                const ir::value_id v = n.inputs[0];
                if (i < destinations.size() && !destinations[i].is_null() && a.sink_of[v] < 0)
                {
                    a.sink_of[v] = static_cast<int>(i);
                    a.sunk.push_back(v);
                }
            }
        }

        bool same_layout(const buffer& a, const buffer& b)
        {
            return a.data() == b.data() && a.dtype() == b.dtype() && a.shape() == b.shape() &&
                   a.strides() == b.strides();
        }

        // Output `out` into its destination `d`: already there when its kernel
        // wrote it in place, else one copy (an input, a view, a duplicate).
        status deliver(const buffer& out, const buffer& d)
        {
            if (same_layout(out, d))
            {
                return status::ok();
            }
            if (out.dtype() != d.dtype() || out.shape() != d.shape() || !d.is_contiguous())
            {
                return status::internal("an output's destination differs from its value's type");
            }
            copy_to_contiguous(out, d.data());
            return status::ok();
        }
    } // namespace

    void resolve_run_layouts(compiled_graph& g)
    {
        const ir::graph& ig = *g.p_graph;
        for (auto& region : g.m_regions)
        {
            for (compiled_node& cn : region)
            {
                cn.m_allocates_outputs = cn.m_kernel && cn.m_kernel->allocates_outputs();
                cn.m_output_layouts.clear();
                cn.m_output_bytes.clear();
                if (!cn.m_static_outputs)
                {
                    continue;
                }
                for (std::size_t i = 0; i < cn.m_outputs.size() && i < cn.m_output_shapes.size();
                     ++i)
                {
                    const ir::dtype elem = ig.type_of(cn.m_outputs[i]).elem;
                    std::int64_t bytes = ir::itemsize(elem);
                    for (std::int64_t d : cn.m_output_shapes[i])
                    {
                        bytes *= d;
                    }
                    cn.m_output_layouts.push_back(buffer::c_layout(elem, cn.m_output_shapes[i]));
                    cn.m_output_bytes.push_back(bytes);
                }
            }
        }
    }

    run_result execute(const executable& exe, const compiled_graph& g,
                       const std::vector<buffer>& inputs, const std::vector<buffer>& destinations,
                       const std::vector<buffer>& targets)
    {
        walk::walker w(exe);
        walk::arena_lease lease(g);
        if (!targets.empty())
        {
            if (targets.size() != g.m_outputs.size())
            {
                return run_result{status::invalid("targets: " + std::to_string(targets.size()) +
                                                  " for " + std::to_string(g.m_outputs.size()) +
                                                  " outputs"),
                                  {},
                                  std::nullopt,
                                  {}};
            }
            w.set_targets(g, targets);
        }
        if (!destinations.empty())
        {
            if (destinations.size() != g.m_outputs.size())
            {
                return run_result{
                    status::invalid("destinations: " + std::to_string(destinations.size()) +
                                    " for " + std::to_string(g.m_outputs.size()) + " outputs"),
                    {},
                    std::nullopt,
                    {}};
            }
            mark_sinks(g, destinations, lease.get());
        }
        walk::frame f{&g, &lease.get(), &inputs, 0};
        run_result r;
        r.outputs.reserve(g.m_outputs.size()); // the run's one heap allocation
        r.state = w.run_graph(f);
        r.stores = w.take_stores();
        for (std::size_t i = 0; r.state && i < lease.get().outputs.size(); ++i)
        {
            const buffer& value = lease.get().outputs[i];
            if (!r.stores.empty() && r.stores.holds(i))
            {
                r.outputs.push_back(targets[i]); // written by r.stores.run()
                continue;
            }
            if (i < destinations.size() && !destinations[i].is_null())
            {
                r.state = deliver(value, destinations[i]);
                r.outputs.push_back(destinations[i]);
                continue;
            }
            auto out = publish(value);
            if (!out)
            {
                r.state = out.error();
                break;
            }
            r.outputs.push_back(std::move(out.value()));
        }
        if (!r.state)
        {
            r.outputs.clear();
            r.stores.drop();
        }
        r.exit = w.take_exit();
        return r;
    }
} // namespace specula::backends
