#include "backends/executor.hpp"

#include "backends/backend.hpp"
#include "backends/interrupt.hpp"
#include "backends/run_shapes.hpp"
#include "backends/strided_copy.hpp"

#include <string>

namespace specula::backends
{
    namespace
    {
        // One activation of a graph: its compiled form, its arena (value
        // table and planned memory) and its boundary.
        struct frame
        {
            const compiled_graph* p_graph = nullptr;
            arena* p_arena = nullptr;
            const std::vector<buffer>* p_inputs = nullptr;
            int depth = 0;

            std::vector<buffer>& values() const { return p_arena->values; }
        };

        // Takes the graph's next arena for the life of one activation; nested
        // (recursive) activations of the same graph get their own.
        class arena_lease
        {
        public:
            explicit arena_lease(const compiled_graph& g) : m_pool(*g.m_pool)
            {
                if (m_pool.m_active == m_pool.m_arenas.size())
                {
                    m_pool.m_arenas.push_back(std::make_unique<arena>());
                }
                p_arena = m_pool.m_arenas[m_pool.m_active++].get();
                p_arena->prepare(*g.p_graph, g.m_plan ? &*g.m_plan : nullptr);
            }
            ~arena_lease()
            {
                p_arena->end_activation();
                --m_pool.m_active;
            }
            arena_lease(const arena_lease&) = delete;
            arena_lease& operator=(const arena_lease&) = delete;

            arena& get() const { return *p_arena; }

        private:
            arena_pool& m_pool;
            arena* p_arena = nullptr;
        };

        class walker
        {
        public:
            explicit walker(const executable& exe) : m_exe(exe) {}

            // Outputs with effect targets (executable::run with targets): per
            // value id of the main graph, the output index, or -1.
            void set_targets(const compiled_graph& g, const std::vector<buffer>& targets)
            {
                p_targets = &targets;
                p_candidates = &store_candidates(g);
                m_store_of.assign(p_candidates->size(), -1);
                const ir::graph& ig = *g.p_graph;
                for (ir::node_id id : g.m_outputs)
                {
                    const ir::node& n = ig.get_node(id);
                    const auto i = static_cast<std::size_t>(n.attr_as<ir::boundary_attr>().index);
                    const ir::value_id v = n.inputs[0];
                    if (i < targets.size() && !targets[i].is_null() &&
                        (*p_candidates)[v] != nullptr)
                    {
                        m_store_of[v] = static_cast<int>(i);
                    }
                }
            }

            deferred_stores take_stores() { return std::move(m_held); }

            status run_graph(frame& f)
            {
                const ir::graph& g = *f.p_graph->p_graph;
                f.p_arena->outputs.assign(f.p_graph->m_outputs.size(), buffer{});
                if (f.p_inputs->size() != f.p_graph->m_inputs.size())
                {
                    return status::invalid("graph '" + g.name() + "' takes " +
                                           std::to_string(f.p_graph->m_inputs.size()) +
                                           " inputs, got " + std::to_string(f.p_inputs->size()));
                }
                return run_region(f, g.body());
            }

            std::optional<assert_exit> take_exit() { return std::move(m_exit); }

        private:
            status run_region(frame& f, ir::region_id r)
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

            status run_node(frame& f, const compiled_node& cn)
            {
                const ir::node& n = *cn.p_node;
                switch (n.code)
                {
                case ir::op::INPUT:
                case ir::op::PARAM:
                    return bind_input(f, n);
                case ir::op::OUTPUT:
                    f.p_arena
                        ->outputs[static_cast<std::size_t>(n.attr_as<ir::boundary_attr>().index)] =
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

            status bind_input(frame& f, const ir::node& n)
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

            status run_assert(frame& f, const ir::node& n)
            {
                if (f.values()[n.inputs[0]].element_as_int(0) != 0)
                {
                    return status::ok();
                }
                const auto& a = n.attr_as<ir::assert_attr>();
                const std::string& graph = f.p_graph->p_graph->name();
                m_exit = assert_exit{a.exit_id, a.reason, graph, n.id};
                return status(status_code::assert_failed,
                              "exit " + std::to_string(a.exit_id) + " (node " +
                                  std::to_string(n.id) + " of graph '" + graph + "'): " + a.reason);
            }

            // Region results become the node's outputs (handles are shared; the
            // arena will not overwrite bytes an output still holds).
            void take_results(frame& f, const ir::node& n, ir::region_id r, std::size_t skip)
            {
                const auto& results = f.p_graph->p_graph->get_region(r).results;
                for (std::size_t i = 0; i < n.outputs.size(); ++i)
                {
                    f.values()[n.outputs[i]] = f.values()[results[i + skip]];
                }
            }

            status run_if(frame& f, const ir::node& n)
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
            status check_carried(frame& f, const compiled_node& cn, const ir::region& body)
            {
                symbol_table& symbols = f.p_arena->symbols;
                for (std::int32_t s : cn.m_loop_symbols)
                {
                    symbols.forget(s);
                }
                const ir::graph& g = *f.p_graph->p_graph;
                for (std::size_t i = 1; i < body.args.size(); ++i)
                {
                    if (status st = symbols.bind(g.type_of(body.args[i]), f.values()[body.args[i]]);
                        !st)
                    {
                        return status::invalid("loop (node " + std::to_string(cn.p_node->id) +
                                               ") carried value " + std::to_string(i - 1) + ": " +
                                               st.message());
                    }
                }
                return status::ok();
            }

            status set_counter(frame& f, ir::value_id arg, std::int64_t it)
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

            // A carried table the loop updates in place (mark_carried_updates):
            // its initial value copied into memory nobody else holds.
            static status own_copy(buffer& b)
            {
                auto fresh = buffer::allocate(b.dtype(), b.shape());
                if (!fresh)
                {
                    return fresh.error();
                }
                copy_to_contiguous(b, static_cast<std::byte*>(fresh.value().data()));
                b = std::move(fresh.value());
                return status::ok();
            }

            status run_loop(frame& f, const compiled_node& cn)
            {
                const ir::node& n = *cn.p_node;
                const auto& attr = n.attr_as<ir::loop_attr>();
                const ir::region& body = f.p_graph->p_graph->get_region(n.regions[0]);
                std::vector<buffer>& values = f.values();
                std::size_t next = 0;
                const std::int64_t trip =
                    attr.has_trip_count ? values[n.inputs[next++]].element_as_int(0) : 0;
                bool cond =
                    attr.has_condition ? values[n.inputs[next++]].element_as_int(0) != 0 : true;
                const std::size_t carried = n.inputs.size() - next;
                for (std::size_t i = 0; i < carried; ++i)
                {
                    values[body.args[i + 1]] = values[n.inputs[next + i]];
                }
                for (std::size_t i : cn.m_owned_carried)
                {
                    if (status st = own_copy(values[body.args[i + 1]]); !st)
                    {
                        return st;
                    }
                }
                const std::size_t skip = attr.has_condition ? 1 : 0;
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
                        return {status_code::interrupted,
                                "loop (node " + std::to_string(n.id) + ")"};
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
                    for (std::size_t i = 0; i < carried; ++i)
                    {
                        values[body.args[i + 1]] = values[body.results[i + skip]];
                    }
                }
                for (std::size_t i = 0; i < n.outputs.size(); ++i)
                {
                    values[n.outputs[i]] = values[body.args[i + 1]];
                }
                return status::ok();
            }

            status run_call(frame& f, const compiled_node& cn)
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

            status gather_inputs(frame& f, const compiled_node& cn)
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
            status stage_inputs(frame& f, const compiled_node& cn)
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

            status run_kernel(frame& f, const compiled_node& cn)
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
                        out = f.values()[cn.m_carried_arg]; // the loop's own copy
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
                    f.values()[cn.m_in_place]
                        .reset(); // dead by the plan; its bytes are the output's
                }
                return status::ok();
            }

            status acquire_output(frame& f, const compiled_node& cn, std::size_t i, buffer& out)
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
            static bool sink(frame& f, ir::value_id v, ir::dtype elem,
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

            // A sunk store (deferred_store.hpp): the kernel of a value whose
            // only reader is an output with a target does not run now; the
            // caller runs it into the target after its last checks. The
            // output reads the target meanwhile (nothing else reads it).
            bool hold_back(frame& f, const compiled_node& cn)
            {
                const ir::value_id v = cn.m_outputs[0];
                if (v >= m_store_of.size() || m_store_of[v] < 0 || (*p_candidates)[v] != &cn)
                {
                    return false;
                }
                const std::vector<const buffer*>& ins = f.p_arena->scratch_inputs;
                for (const buffer* b : ins)
                {
                    // A staging block is reused by the next node: not kept.
                    if (!f.p_arena->staged.empty() && b >= f.p_arena->staged.data() &&
                        b < f.p_arena->staged.data() + f.p_arena->staged.size())
                    {
                        return false;
                    }
                }
                const ir::graph& g = *f.p_graph->p_graph;
                std::vector<std::int64_t> shape;
                if (cn.m_static_outputs)
                {
                    shape = cn.m_output_shapes[0];
                }
                else
                {
                    auto sizes = resolve_output_shape(g, *cn.p_node, ins);
                    if (!sizes)
                    {
                        return false;
                    }
                    shape = std::move(sizes.value());
                }
                const auto i = static_cast<std::size_t>(m_store_of[v]);
                const buffer& target = (*p_targets)[i];
                if (!may_store_into(g.type_of(v).elem, shape, target, ins.data(), ins.size(),
                                    m_held))
                {
                    return false;
                }
                std::vector<buffer> operands;
                operands.reserve(ins.size());
                for (const buffer* b : ins)
                {
                    operands.push_back(*b); // a real reference: the arena keeps off
                }
                m_held.add(cn.m_kernel.get(), std::move(operands), target, i);
                f.values()[v] = target;
                return true;
            }

            const executable& m_exe;
            std::optional<assert_exit> m_exit;
            const std::vector<buffer>* p_targets = nullptr;
            const std::vector<const compiled_node*>* p_candidates = nullptr;
            std::vector<int> m_store_of;
            deferred_stores m_held;
        };

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
    } // namespace

    namespace
    {
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
        walker w(exe);
        arena_lease lease(g);
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
        frame f{&g, &lease.get(), &inputs, 0};
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
