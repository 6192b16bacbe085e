#include "ir/passes/infer_types.hpp"

#include "ir/infer.hpp"

namespace specula::ir
{
    namespace
    {
        // Keeps a recorded symbol where inference invented a fresh one, so re-running
        // the pass is stable and does not grow the symbol table.
        value_type settle(const value_type& recorded, value_type inferred, std::int32_t first_fresh)
        {
            if (recorded.elem != inferred.elem || recorded.dims.rank() != inferred.dims.rank())
            {
                return inferred;
            }
            for (int i = 0; i < inferred.dims.rank(); ++i)
            {
                const dim d = inferred.dims[i];
                if (d.is_symbolic() && d.symbol_id() >= first_fresh &&
                    recorded.dims[i].is_symbolic())
                {
                    inferred.dims[i] = recorded.dims[i];
                }
            }
            return inferred;
        }

        // The most specific type both refine: differing dims become fresh symbols.
        // A symbol `a` shares with the loop's init (`outer`) names a size fixed
        // outside the loop, so a carried dim that changes gets its own symbol.
        value_type generalize(graph& g, const value_type& a, const value_type& b,
                              const value_type* outer = nullptr)
        {
            value_type out = a;
            for (int i = 0; i < a.dims.rank() && i < b.dims.rank(); ++i)
            {
                const bool inherited = outer != nullptr && i < outer->dims.rank() &&
                                       a.dims[i].is_symbolic() && outer->dims[i] == a.dims[i];
                if (a.dims[i] != b.dims[i] && (!a.dims[i].is_symbolic() || inherited))
                {
                    out.dims[i] = dim::symbol(g.new_symbol());
                }
            }
            return out;
        }

        class inferrer
        {
        public:
            explicit inferrer(graph& g) : m_graph(g) {}

            status run() { return run_region(m_graph.body()); }

        private:
            status run_region(region_id r)
            {
                const std::vector<node_id> nodes = m_graph.get_region(r).nodes;
                for (node_id n : nodes)
                {
                    if (auto st = run_node(n); !st)
                    {
                        return st;
                    }
                }
                return status::success();
            }

            status run_node(node_id n)
            {
                const op code = m_graph.get_node(n).code;
                if (code == op::INPUT || code == op::PARAM)
                {
                    return status::success();
                }
                if (code == op::LOOP)
                {
                    if (auto st = run_loop_body(n); !st)
                    {
                        return st;
                    }
                }
                else
                {
                    for (region_id r : m_graph.get_node(n).regions)
                    {
                        if (auto st = run_region(r); !st)
                        {
                            return st;
                        }
                    }
                }
                return assign(n);
            }

            status assign(node_id n)
            {
                const std::int32_t first_fresh = m_graph.num_symbols();
                auto types = infer_node(m_graph, n);
                if (!types)
                {
                    return status::error("node " + std::to_string(n) + " (" +
                                         std::string(mnemonic(m_graph.get_node(n).code)) +
                                         "): " + types.message());
                }
                const auto outs = m_graph.get_node(n).outputs;
                if (types->size() != outs.size())
                {
                    return status::error("node " + std::to_string(n) + ": output count changed");
                }
                for (size_t i = 0; i < outs.size(); ++i)
                {
                    value& v = m_graph.get(outs[i]);
                    v.type = settle(v.type, (*types)[i], first_fresh);
                }
                return status::success();
            }

            // Widen the body's carried argument types until init and body results
            // both fit them.
            status run_loop_body(node_id n)
            {
                const node& nd = m_graph.get_node(n);
                const auto& a = nd.attr_as<loop_attr>();
                const size_t skip = (a.has_trip_count ? 1 : 0) + (a.has_condition ? 1 : 0);
                const region_id body = nd.regions.at(0);
                for (int round = 0; round < 4; ++round)
                {
                    const node& cur = m_graph.get_node(n);
                    region& reg = m_graph.get_region(body);
                    for (size_t i = skip; i < cur.inputs.size() && i - skip + 1 < reg.args.size();
                         ++i)
                    {
                        value& arg = m_graph.get(reg.args[i - skip + 1]);
                        const value_type init = m_graph.type_of(cur.inputs[i]);
                        if (arg.type.elem != init.elem || arg.type.dims.rank() != init.dims.rank())
                        {
                            arg.type = init;
                        }
                        else if (arg.type != init)
                        {
                            arg.type = generalize(m_graph, arg.type, init);
                        }
                    }
                    if (auto st = run_region(body); !st)
                    {
                        return st;
                    }
                    if (!widen_args_from_results(n, skip))
                    {
                        return status::success();
                    }
                }
                return status::error("node " + std::to_string(n) + ": loop types do not settle");
            }

            bool widen_args_from_results(node_id n, size_t skip)
            {
                const node& nd = m_graph.get_node(n);
                const size_t r0 = nd.attr_as<loop_attr>().has_condition ? 1 : 0;
                region& reg = m_graph.get_region(nd.regions[0]);
                bool changed = false;
                const size_t carried = nd.inputs.size() - skip;
                for (size_t i = 0;
                     i < carried && r0 + i < reg.results.size() && i + 1 < reg.args.size(); ++i)
                {
                    value& arg = m_graph.get(reg.args[i + 1]);
                    const value_type res = m_graph.type_of(reg.results[r0 + i]);
                    if (res.elem == arg.type.elem && res.dims.rank() == arg.type.dims.rank() &&
                        res != arg.type)
                    {
                        const value_type init = m_graph.type_of(nd.inputs[skip + i]);
                        const value_type wider = generalize(m_graph, arg.type, res, &init);
                        changed = changed || wider != arg.type;
                        arg.type = wider;
                    }
                }
                return changed;
            }

            graph& m_graph;
        };
    } // namespace

    status infer_types(graph& g)
    {
        return inferrer(g).run();
    }

    status infer_types(module& m)
    {
        for (int round = 0; round < 3; ++round)
        {
            for (const std::string& name : m.names())
            {
                if (auto st = infer_types(*m.find(name)); !st)
                {
                    return status::error("@" + name + ": " + st.message());
                }
            }
        }
        return status::success();
    }
} // namespace specula::ir
