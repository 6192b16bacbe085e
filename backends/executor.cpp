#include "backends/executor.hpp"

#include "backends/backend.hpp"
#include "backends/run_shapes.hpp"

#include <string>

namespace specula::backends
{
    namespace
    {
        // One activation of a graph: the value table plus its boundary.
        struct frame
        {
            const compiled_graph* p_graph = nullptr;
            std::vector<buffer> values; // indexed by value id
            const std::vector<buffer>* p_inputs = nullptr;
            std::vector<buffer> outputs;
            symbol_table symbols;
            std::vector<const buffer*> scratch_inputs; // reused per node
            int depth = 0;
        };

        class walker
        {
        public:
            explicit walker(const executable& exe) : m_exe(exe) {}

            status run_graph(frame& f)
            {
                const ir::graph& g = *f.p_graph->p_graph;
                f.values.resize(g.num_values());
                f.outputs.resize(f.p_graph->m_outputs.size());
                f.symbols.reset(g.num_symbols());
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
                    f.outputs[static_cast<std::size_t>(n.attr_as<ir::boundary_attr>().index)] =
                        f.values[n.inputs[0]];
                    return status::ok();
                case ir::op::ASSERT:
                    return run_assert(f, n);
                case ir::op::IF:
                    return run_if(f, n);
                case ir::op::LOOP:
                    return run_loop(f, n);
                case ir::op::CALL:
                    return run_call(f, n);
                default:
                    return run_kernel(f, cn);
                }
            }

            status bind_input(frame& f, const ir::node& n)
            {
                const auto index = static_cast<std::size_t>(n.attr_as<ir::boundary_attr>().index);
                const buffer& b = (*f.p_inputs)[index];
                const ir::value_type& want = f.p_graph->p_graph->type_of(n.outputs[0]);
                if (status st = f.symbols.bind(want, b); !st)
                {
                    return status::invalid("input " + std::to_string(index) + ": " + st.message());
                }
                f.values[n.outputs[0]] = b;
                return status::ok();
            }

            status run_assert(frame& f, const ir::node& n)
            {
                if (f.values[n.inputs[0]].element_as_int(0) != 0)
                {
                    return status::ok();
                }
                const auto& a = n.attr_as<ir::assert_attr>();
                m_exit = assert_exit{a.exit_id, a.reason};
                return status(status_code::assert_failed,
                              "exit " + std::to_string(a.exit_id) + ": " + a.reason);
            }

            // Region results become the node's outputs (buffers are shared).
            void take_results(frame& f, const ir::node& n, ir::region_id r, std::size_t skip)
            {
                const auto& results = f.p_graph->p_graph->get_region(r).results;
                for (std::size_t i = 0; i < n.outputs.size(); ++i)
                {
                    f.values[n.outputs[i]] = f.values[results[i + skip]];
                }
            }

            status run_if(frame& f, const ir::node& n)
            {
                const bool cond = f.values[n.inputs[0]].element_as_int(0) != 0;
                const ir::region_id r = n.regions[cond ? 0 : 1];
                if (status st = run_region(f, r); !st)
                {
                    return st;
                }
                take_results(f, n, r, 0);
                return status::ok();
            }

            status run_loop(frame& f, const ir::node& n)
            {
                const auto& attr = n.attr_as<ir::loop_attr>();
                const ir::region& body = f.p_graph->p_graph->get_region(n.regions[0]);
                std::size_t next = 0;
                const std::int64_t trip =
                    attr.has_trip_count ? f.values[n.inputs[next++]].element_as_int(0) : 0;
                bool cond =
                    attr.has_condition ? f.values[n.inputs[next++]].element_as_int(0) != 0 : true;
                const std::size_t carried = n.inputs.size() - next;
                for (std::size_t i = 0; i < carried; ++i)
                {
                    f.values[body.args[i + 1]] = f.values[n.inputs[next + i]];
                }
                const std::size_t skip = attr.has_condition ? 1 : 0;
                for (std::int64_t it = 0; (!attr.has_trip_count || it < trip) && cond; ++it)
                {
                    auto counter = buffer::allocate(ir::dtype::int64, {});
                    if (!counter)
                    {
                        return counter.error();
                    }
                    *reinterpret_cast<std::int64_t*>(counter->data()) = it;
                    f.values[body.args[0]] = *counter;
                    if (status st = run_region(f, body.id); !st)
                    {
                        return st;
                    }
                    if (attr.has_condition)
                    {
                        cond = f.values[body.results[0]].element_as_int(0) != 0;
                    }
                    for (std::size_t i = 0; i < carried; ++i)
                    {
                        f.values[body.args[i + 1]] = f.values[body.results[i + skip]];
                    }
                }
                for (std::size_t i = 0; i < n.outputs.size(); ++i)
                {
                    f.values[n.outputs[i]] = f.values[body.args[i + 1]];
                }
                return status::ok();
            }

            status run_call(frame& f, const ir::node& n)
            {
                if (f.depth + 1 > max_call_depth)
                {
                    return status::runtime("call depth above " + std::to_string(max_call_depth));
                }
                const auto& callee = n.attr_as<ir::call_attr>().callee;
                frame inner;
                inner.p_graph = m_exe.find(callee);
                inner.depth = f.depth + 1;
                std::vector<buffer> args;
                args.reserve(n.inputs.size());
                for (ir::value_id v : n.inputs)
                {
                    args.push_back(f.values[v]);
                }
                inner.p_inputs = &args;
                if (status st = run_graph(inner); !st)
                {
                    return st;
                }
                for (std::size_t i = 0; i < n.outputs.size() && i < inner.outputs.size(); ++i)
                {
                    f.values[n.outputs[i]] = inner.outputs[i];
                }
                return status::ok();
            }

            status run_kernel(frame& f, const compiled_node& cn)
            {
                const ir::node& n = *cn.p_node;
                f.scratch_inputs.clear();
                for (ir::value_id v : n.inputs)
                {
                    f.scratch_inputs.push_back(&f.values[v]);
                }
                buffer* outs = n.outputs.empty() ? nullptr : &f.values[n.outputs[0]];
                if (n.outputs.size() > 1)
                {
                    return status::unimplemented("kernels with several outputs");
                }
                if (!cn.m_kernel->allocates_outputs() && outs != nullptr)
                {
                    if (status st = allocate_outputs(f, cn, *outs); !st)
                    {
                        return st;
                    }
                }
                kernel_io io{f.scratch_inputs.data(), static_cast<int>(f.scratch_inputs.size()),
                             outs, static_cast<int>(n.outputs.size())};
                status st = cn.m_kernel->run(io);
                if (!st)
                {
                    return status(st.code(),
                                  std::string(ir::mnemonic(n.code)) + ": " + st.message());
                }
                return status::ok();
            }

            status allocate_outputs(frame& f, const compiled_node& cn, buffer& out)
            {
                const ir::node& n = *cn.p_node;
                const ir::graph& g = *f.p_graph->p_graph;
                const ir::dtype elem = g.type_of(n.outputs[0]).elem;
                if (cn.m_static_outputs)
                {
                    auto b = buffer::allocate(elem, cn.m_output_shapes[0]);
                    if (!b)
                    {
                        return b.error();
                    }
                    out = std::move(b.value());
                    return status::ok();
                }
                auto sizes = resolve_output_shape(g, n, f.scratch_inputs);
                if (!sizes)
                {
                    return sizes.error();
                }
                auto b = buffer::allocate(elem, std::move(sizes.value()));
                if (!b)
                {
                    return b.error();
                }
                out = std::move(b.value());
                return status::ok();
            }

            const executable& m_exe;
            std::optional<assert_exit> m_exit;
        };
    } // namespace

    run_result execute(const executable& exe, const compiled_graph& g,
                       const std::vector<buffer>& inputs)
    {
        walker w(exe);
        frame f;
        f.p_graph = &g;
        f.p_inputs = &inputs;
        run_result r;
        r.state = w.run_graph(f);
        if (r.state)
        {
            r.outputs = std::move(f.outputs);
        }
        r.exit = w.take_exit();
        return r;
    }
} // namespace specula::backends
