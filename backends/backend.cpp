#include "backends/backend.hpp"

#include "backends/executor.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace specula::backends
{
    bool is_executor_op(ir::op code)
    {
        return ir::has(code, ir::prop::BOUNDARY) || ir::has(code, ir::prop::CONTROL_FLOW) ||
               code == ir::op::ASSERT;
    }

    result<std::unique_ptr<kernel>> backend::compile_node(const ir::graph& g, const ir::node& n,
                                                          const target& t) const
    {
        return compile_node_impl(g, n, t);
    }

    result<group_kernel> backend::compile_group(const ir::graph& g, const fused_group& fg,
                                                const target& t) const
    {
        return compile_group_impl(g, fg, t);
    }

    result<group_kernel> backend::compile_group_impl(const ir::graph&, const fused_group&,
                                                     const target&) const
    {
        return status::unimplemented("fused groups");
    }

    std::vector<fused_group> backend::pattern_groups(const ir::graph& g, const target& t) const
    {
        return pattern_groups_impl(g, t);
    }

    std::vector<fused_group> backend::pattern_groups_impl(const ir::graph&, const target&) const
    {
        return {};
    }

    namespace
    {
        void add_symbols(const ir::value_type& t, std::vector<std::int32_t>& out)
        {
            for (int d = 0; d < t.dims.rank(); ++d)
            {
                if (t.dims[d].is_symbolic())
                {
                    out.push_back(t.dims[d].symbol_id());
                }
            }
        }

        // Symbols on a loop's carried arguments that the graph's inputs do
        // not fix: the executor rebinds them at every iteration.
        std::vector<std::int32_t> loop_symbols(const ir::graph& g, const ir::node& n)
        {
            std::vector<std::int32_t> fixed;
            for (ir::node_id in : g.inputs())
            {
                add_symbols(g.type_of(g.get_node(in).outputs[0]), fixed);
            }
            std::vector<std::int32_t> scoped;
            const auto& args = g.get_region(n.regions[0]).args;
            for (std::size_t i = 1; i < args.size(); ++i)
            {
                add_symbols(g.type_of(args[i]), scoped);
            }
            std::sort(scoped.begin(), scoped.end());
            scoped.erase(std::unique(scoped.begin(), scoped.end()), scoped.end());
            scoped.erase(
                std::remove_if(scoped.begin(), scoped.end(),
                               [&fixed](std::int32_t s)
                               { return std::find(fixed.begin(), fixed.end(), s) != fixed.end(); }),
                scoped.end());
            return scoped;
        }

        std::string describe(const ir::graph& g, const ir::node& n)
        {
            return std::string(ir::mnemonic(n.code)) + " (node " + std::to_string(n.id) +
                   " of graph '" + g.name() + "')";
        }

        // Compiles graphs into one executable, each graph once (so recursive
        // calls terminate), asking the primary backend then the fallback.
        class graph_compiler
        {
        public:
            graph_compiler(const backend& primary, const backend* fallback, const target& t,
                           executable& exe)
                : m_primary(primary), p_fallback(fallback), m_target(t), m_exe(exe)
            {
            }

            result<const compiled_graph*> compile_graph(const ir::graph& g)
            {
                if (const compiled_graph* done = m_exe.find(g.name()))
                {
                    return done;
                }
                group_scope scope(*this);
                compiled_graph& cg = m_exe.add_graph(g.name());
                cg.p_graph = &g;
                cg.m_regions.resize(g.num_regions());
                cg.m_inputs = g.inputs();
                cg.m_outputs = g.outputs();
                compile_groups(g);
                if (status st = compile_region(g, cg, g.body()); !st)
                {
                    return st;
                }
                if (m_target.plan_memory)
                {
                    plan(g, cg);
                }
                resolve_run_layouts(cg);
                return &cg;
            }

        private:
            struct compiled_group
            {
                std::vector<const ir::node*> members;
                std::vector<ir::value_id> outputs;
                group_kernel kernel;
            };

            class group_scope
            {
            public:
                explicit group_scope(graph_compiler& c)
                    : m_c(c), m_groups(std::move(c.m_groups)), m_member_of(std::move(c.m_member_of))
                {
                    c.m_groups.clear();
                    c.m_member_of.clear();
                }
                ~group_scope()
                {
                    m_c.m_groups = std::move(m_groups);
                    m_c.m_member_of = std::move(m_member_of);
                }
                group_scope(const group_scope&) = delete;
                group_scope& operator=(const group_scope&) = delete;

            private:
                graph_compiler& m_c;
                std::map<ir::node_id, compiled_group> m_groups;
                std::map<ir::node_id, ir::node_id> m_member_of;
            };

            // Groups the primary backend takes as one kernel, keyed by their last
            // member (where they run); the other members are left out.
            void compile_groups(const ir::graph& g)
            {
                m_groups.clear();
                m_member_of.clear();
                std::vector<fused_group> candidates = m_primary.pattern_groups(g, m_target);
                for (fused_group& fg : find_fused_groups(g))
                {
                    candidates.push_back(std::move(fg));
                }
                for (fused_group& fg : candidates)
                {
                    const bool taken = std::any_of(fg.members.begin(), fg.members.end(),
                                                   [this](const ir::node* m)
                                                   { return m_member_of.count(m->id) != 0; });
                    if (taken)
                    {
                        continue; // overlaps a pattern group compiled before it
                    }
                    auto k = m_primary.compile_group(g, fg, m_target);
                    if (!k)
                    {
                        continue; // unimplemented or not: node by node
                    }
                    const ir::node_id last = fg.members.back()->id;
                    for (const ir::node* m : fg.members)
                    {
                        m_member_of[m->id] = last;
                    }
                    m_groups[last] = {std::move(fg.members), std::move(fg.outputs),
                                      std::move(k.value())};
                }
            }

            // After the kernels are chosen: which nodes are views of their
            // input (the plan must know what aliases what), then the in-place
            // inputs the plan allows.
            void plan(const ir::graph& g, compiled_graph& cg)
            {
                std::vector<std::vector<ir::node_id>> groups;
                for (const auto& [last, cgroup] : m_groups)
                {
                    groups.emplace_back();
                    for (const ir::node* m : cgroup.members)
                    {
                        groups.back().push_back(m->id);
                    }
                }
                std::vector<ir::node_id> views;
                for (const auto& region : cg.m_regions)
                {
                    for (const compiled_node& cn : region)
                    {
                        if (cn.m_kernel && cn.m_kernel->aliases_input())
                        {
                            views.push_back(cn.p_node->id);
                        }
                    }
                }
                cg.m_plan = ir::plan_memory(g, groups, views);
                for (auto& region : cg.m_regions)
                {
                    for (compiled_node& cn : region)
                    {
                        const int in = cg.m_plan->in_place_input[cn.p_node->id];
                        if (in >= 0 && m_member_of.count(cn.p_node->id) == 0)
                        {
                            cn.m_in_place = cn.p_node->inputs[static_cast<std::size_t>(in)];
                        }
                    }
                }
                mark_carried_updates(cg);
            }

            void emit_group(const ir::graph& g, compiled_group& grp, compiled_node& cn)
            {
                cn.m_kernel = std::move(grp.kernel.m_kernel);
                cn.m_inputs = std::move(grp.kernel.m_inputs);
                cn.m_outputs = grp.outputs;
                cn.m_output_shapes.clear();
                for (ir::value_id v : cn.m_outputs)
                {
                    cn.m_output_shapes.push_back(*g.type_of(v).dims.static_sizes());
                }
                cn.m_static_outputs = true;
                cn.m_backend = std::string(m_primary.name());
            }

            status compile_region(const ir::graph& g, compiled_graph& cg, ir::region_id r)
            {
                for (ir::node_id id : g.get_region(r).nodes)
                {
                    const ir::node& n = g.get_node(id);
                    compiled_node cn;
                    auto member = m_member_of.find(id);
                    if (member != m_member_of.end())
                    {
                        if (member->second != id)
                        {
                            continue; // runs inside its group, at the last member
                        }
                        cn.p_node = &n;
                        emit_group(g, m_groups.at(id), cn);
                        cg.m_regions[r].push_back(std::move(cn));
                        continue;
                    }
                    if (status st = compile_one(g, n, cn); !st)
                    {
                        return st;
                    }
                    cg.m_regions[r].push_back(std::move(cn));
                    for (ir::region_id inner : n.regions)
                    {
                        if (status st = compile_region(g, cg, inner); !st)
                        {
                            return st;
                        }
                    }
                }
                return status::ok();
            }

            status compile_one(const ir::graph& g, const ir::node& n, compiled_node& cn)
            {
                cn.p_node = &n;
                cn.m_inputs = n.inputs;
                cn.m_outputs = n.outputs;
                for (ir::value_id v : n.outputs)
                {
                    auto sizes = g.type_of(v).dims.static_sizes();
                    cn.m_static_outputs = cn.m_static_outputs && sizes.has_value();
                    cn.m_output_shapes.push_back(sizes.value_or(std::vector<std::int64_t>{}));
                }
                if (n.code == ir::op::CALL)
                {
                    return compile_callee(g, n, cn);
                }
                if (n.code == ir::op::LOOP)
                {
                    cn.m_loop_symbols = loop_symbols(g, n);
                }
                if (is_executor_op(n.code))
                {
                    cn.m_backend = "executor";
                    return status::ok();
                }
                return pick_kernel(g, n, cn);
            }

            status compile_callee(const ir::graph& g, const ir::node& n, compiled_node& cn)
            {
                const std::string& callee = n.attr_as<ir::call_attr>().callee;
                const ir::module* m = g.parent_module();
                const ir::graph* target_graph = m != nullptr ? m->find(callee) : nullptr;
                if (target_graph == nullptr)
                {
                    return status::invalid("call of unknown graph '" + callee + "'");
                }
                auto compiled = compile_graph(*target_graph);
                if (!compiled)
                {
                    return compiled.error();
                }
                cn.p_callee = compiled.value(); // stable: the executable owns it
                return status::ok();
            }

            status pick_kernel(const ir::graph& g, const ir::node& n, compiled_node& cn)
            {
                auto k = m_primary.compile_node(g, n, m_target);
                cn.m_backend = std::string(m_primary.name());
                if (!k && k.error().code() == status_code::unimplemented && p_fallback != nullptr)
                {
                    k = p_fallback->compile_node(g, n, m_target);
                    cn.m_backend = std::string(p_fallback->name());
                }
                if (!k)
                {
                    return status(k.error().code(), describe(g, n) + ": " + k.error().message());
                }
                cn.m_kernel = std::move(k.value());
                return status::ok();
            }

            const backend& m_primary;
            const backend* p_fallback;
            target m_target;
            executable& m_exe;
            // Of the graph being compiled; a callee compiled from inside its
            // caller's region (compile_callee) saves and restores them.
            std::map<ir::node_id, compiled_group> m_groups;
            std::map<ir::node_id, ir::node_id> m_member_of; // member -> last member
        };
    } // namespace

    result<std::unique_ptr<executable>> backend::compile(const ir::graph& g, const target& t,
                                                         const backend* fallback) const
    {
        auto exe = std::make_unique<executable>();
        graph_compiler compiler(*this, fallback, t, *exe);
        auto main = compiler.compile_graph(g);
        if (!main)
        {
            return main.error();
        }
        exe->set_main(main.value());
        return exe;
    }
} // namespace specula::backends
