#include "ir/verifier.hpp"

#include <set>

#include "ir/infer.hpp"

namespace specula::ir
{
    std::string diagnostic::to_string() const
    {
        std::string out = "@" + graph_name + ": ";
        if (node != no_id)
        {
            out += "node " + std::to_string(node) + " (" + op_name + "): ";
        }
        return out + message;
    }

    std::string format(const std::vector<diagnostic>& diags)
    {
        std::string out;
        for (const diagnostic& d : diags)
        {
            out += (out.empty() ? "" : "\n") + d.to_string();
        }
        return out;
    }

    namespace
    {
        // Symbols handed out while re-inferring; they match any recorded dim.
        constexpr std::int32_t g_wild_base = 1 << 29;

        bool matches(const value_type& recorded, const value_type& inferred)
        {
            if (recorded.elem != inferred.elem || recorded.dims.rank() != inferred.dims.rank())
            {
                return false;
            }
            for (int i = 0; i < recorded.dims.rank(); ++i)
            {
                const dim& d = inferred.dims[i];
                const bool wild = d.is_symbolic() && d.symbol_id() >= g_wild_base;
                if (!wild && d != recorded.dims[i])
                {
                    return false;
                }
            }
            return true;
        }

        class verifier
        {
        public:
            explicit verifier(const graph& g) : m_graph(g) {}

            std::vector<diagnostic> run()
            {
                std::vector<std::set<value_id>> scopes;
                check_region(m_graph.body(), scopes);
                check_boundaries();
                check_region_ownership();
                return std::move(m_diags);
            }

        private:
            void report(node_id n, std::string message)
            {
                diagnostic d;
                d.graph_name = m_graph.name();
                d.node = n;
                if (n != no_id)
                {
                    d.op_name = std::string(mnemonic(m_graph.get_node(n).code));
                }
                d.message = std::move(message);
                m_diags.push_back(std::move(d));
            }

            static bool visible(const std::vector<std::set<value_id>>& scopes, value_id v)
            {
                for (const auto& s : scopes)
                {
                    if (s.count(v))
                    {
                        return true;
                    }
                }
                return false;
            }

            void check_region(region_id r, std::vector<std::set<value_id>>& scopes)
            {
                const region& reg = m_graph.get_region(r);
                scopes.emplace_back(reg.args.begin(), reg.args.end());
                for (node_id n : reg.nodes)
                {
                    check_node(n, r, scopes);
                }
                for (value_id v : reg.results)
                {
                    if (v >= m_graph.num_values() || !visible(scopes, v))
                    {
                        report(reg.parent, "region " + std::to_string(r) + " yields value " +
                                               std::to_string(v) + " that is not defined before");
                    }
                }
                scopes.pop_back();
            }

            void check_node(node_id id, region_id r, std::vector<std::set<value_id>>& scopes)
            {
                const node& n = m_graph.get_node(id);
                if (n.erased || n.parent != r)
                {
                    report(id, "listed in region " + std::to_string(r) +
                                   " but erased or parented elsewhere");
                    return;
                }
                bool inputs_ok = true;
                for (value_id v : n.inputs)
                {
                    if (v >= m_graph.num_values() || !visible(scopes, v))
                    {
                        report(id, "uses value " + std::to_string(v) + " before its definition");
                        inputs_ok = false;
                    }
                }
                check_shape_of_node(n);
                for (region_id child : n.regions)
                {
                    const bool owned =
                        child < m_graph.num_regions() && m_graph.get_region(child).parent == n.id;
                    if (owned && m_entered.insert(child).second)
                    {
                        check_region(child, scopes);
                    }
                }
                if (inputs_ok)
                {
                    check_types(n);
                }
                for (size_t i = 0; i < n.outputs.size(); ++i)
                {
                    const value& v = m_graph.get(n.outputs[i]);
                    if (v.def != id || v.index != i)
                    {
                        report(id,
                               "output " + std::to_string(i) + " does not point back to its node");
                    }
                    scopes.back().insert(n.outputs[i]);
                }
            }

            void check_shape_of_node(const node& n)
            {
                const op_info& oi = info(n.code);
                if (oi.num_inputs >= 0 && static_cast<int>(n.inputs.size()) != oi.num_inputs)
                {
                    report(n.id, "expects " + std::to_string(oi.num_inputs) + " inputs, has " +
                                     std::to_string(n.inputs.size()));
                }
                if (oi.num_outputs >= 0 && static_cast<int>(n.outputs.size()) != oi.num_outputs)
                {
                    report(n.id, "expects " + std::to_string(oi.num_outputs) + " outputs, has " +
                                     std::to_string(n.outputs.size()));
                }
                if (n.attr.index() != oi.attr_index)
                {
                    report(n.id, "carries the wrong attribute kind");
                }
                const size_t want = n.code == op::IF ? 2 : n.code == op::LOOP ? 1 : 0;
                if (n.regions.size() != want)
                {
                    report(n.id, "expects " + std::to_string(want) + " regions, has " +
                                     std::to_string(n.regions.size()));
                }
                for (region_id child : n.regions)
                {
                    if (child >= m_graph.num_regions() || m_graph.get_region(child).parent != n.id)
                    {
                        report(n.id,
                               "region " + std::to_string(child) + " is not owned by this node");
                    }
                    else if (n.code == op::IF && !m_graph.get_region(child).args.empty())
                    {
                        report(n.id, "if regions take no arguments");
                    }
                }
                if (has(n.code, prop::BOUNDARY) && n.parent != m_graph.body())
                {
                    report(n.id, "boundary ops belong in the graph body");
                }
            }

            void check_types(const node& n)
            {
                if (n.code == op::INPUT || n.code == op::PARAM)
                {
                    return;
                }
                if (n.code == op::CALL)
                {
                    check_call(n);
                    return;
                }
                if (n.attr.index() != info(n.code).attr_index)
                {
                    return;
                }
                infer_request req;
                req.code = n.code;
                req.attr = &n.attr;
                for (value_id v : n.inputs)
                {
                    req.inputs.push_back(m_graph.type_of(v));
                }
                for (region_id r : n.regions)
                {
                    if (r >= m_graph.num_regions())
                    {
                        return;
                    }
                    std::vector<value_type> res;
                    for (value_id v : m_graph.get_region(r).results)
                    {
                        if (v >= m_graph.num_values())
                        {
                            return;
                        }
                        res.push_back(m_graph.type_of(v));
                    }
                    req.region_results.push_back(std::move(res));
                }
                if (n.code == op::LOOP && n.regions.size() == 1)
                {
                    for (value_id v : m_graph.get_region(n.regions[0]).args)
                    {
                        req.extra.push_back(m_graph.type_of(v));
                    }
                }
                std::int32_t next = g_wild_base;
                req.fresh_symbol = [&next]() { return next++; };
                req.trimmed_symbol = [this, &next](std::int32_t base, std::int64_t trim)
                {
                    auto known = m_graph.find_trimmed_symbol(base, trim);
                    return known ? *known : next++;
                };
                auto inferred = infer_output_types(req);
                if (!inferred)
                {
                    report(n.id, inferred.message());
                    return;
                }
                compare_outputs(n, *inferred);
            }

            void compare_outputs(const node& n, const std::vector<value_type>& inferred)
            {
                if (inferred.size() != n.outputs.size())
                {
                    report(n.id, "has " + std::to_string(n.outputs.size()) +
                                     " outputs, rules give " + std::to_string(inferred.size()));
                    return;
                }
                for (size_t i = 0; i < inferred.size(); ++i)
                {
                    const value_type& rec = m_graph.type_of(n.outputs[i]);
                    if (!matches(rec, inferred[i]))
                    {
                        report(n.id, "type mismatch on output " + std::to_string(i) +
                                         ": recorded " + rec.to_string() + ", inferred " +
                                         inferred[i].to_string());
                    }
                }
            }

            void check_call(const node& n)
            {
                const auto& callee_name = std::get<call_attr>(n.attr).callee;
                const module* m = m_graph.parent_module();
                const graph* callee = m ? m->find(callee_name) : nullptr;
                if (callee == nullptr)
                {
                    report(n.id, "calls unknown graph @" + callee_name);
                    return;
                }
                const auto ins = callee->inputs();
                const auto outs = callee->outputs();
                if (ins.size() != n.inputs.size() || outs.size() != n.outputs.size())
                {
                    report(n.id, "call of @" + callee_name + " with " +
                                     std::to_string(n.inputs.size()) + " args / " +
                                     std::to_string(n.outputs.size()) + " results; callee takes " +
                                     std::to_string(ins.size()) + " / " +
                                     std::to_string(outs.size()));
                    return;
                }
                for (size_t i = 0; i < ins.size(); ++i)
                {
                    const value_type& want = callee->type_of(callee->get_node(ins[i]).outputs[0]);
                    const value_type& got = m_graph.type_of(n.inputs[i]);
                    if (got.elem != want.elem || got.dims.rank() != want.dims.rank())
                    {
                        report(n.id, "argument " + std::to_string(i) + " is " + got.to_string() +
                                         ", callee wants " + want.to_string());
                    }
                }
                for (size_t i = 0; i < outs.size(); ++i)
                {
                    const value_type& have = callee->type_of(callee->get_node(outs[i]).inputs[0]);
                    const value_type& rec = m_graph.type_of(n.outputs[i]);
                    if (rec.elem != have.elem || rec.dims.rank() != have.dims.rank())
                    {
                        report(n.id, "result " + std::to_string(i) + " is " + rec.to_string() +
                                         ", callee returns " + have.to_string());
                    }
                }
            }

            void check_boundaries()
            {
                std::set<int> in_seen;
                std::set<int> out_seen;
                for (node_id id : m_graph.get_region(m_graph.body()).nodes)
                {
                    const node& n = m_graph.get_node(id);
                    if (!has(n.code, prop::BOUNDARY) || n.attr.index() != info(n.code).attr_index)
                    {
                        continue;
                    }
                    auto& seen = n.code == op::OUTPUT ? out_seen : in_seen;
                    if (!seen.insert(n.attr_as<boundary_attr>().index).second)
                    {
                        report(id, "duplicate boundary index " +
                                       std::to_string(n.attr_as<boundary_attr>().index));
                    }
                }
                for (const auto* seen : {&in_seen, &out_seen})
                {
                    if (!seen->empty() && (*seen->begin() != 0 ||
                                           *seen->rbegin() != static_cast<int>(seen->size()) - 1))
                    {
                        report(no_id, "boundary indices are not 0..n-1");
                    }
                }
            }

            void check_region_ownership()
            {
                std::vector<int> owners(m_graph.num_regions(), 0);
                for (node_id id : m_graph.walk())
                {
                    for (region_id r : m_graph.get_node(id).regions)
                    {
                        if (r < owners.size() && ++owners[r] > 1)
                        {
                            report(id, "region " + std::to_string(r) + " is used by two ops");
                        }
                    }
                }
            }

            const graph& m_graph;
            std::vector<diagnostic> m_diags;
            std::set<region_id> m_entered{0};
        };
    } // namespace

    std::vector<diagnostic> verify(const graph& g)
    {
        return verifier(g).run();
    }

    std::vector<diagnostic> verify(const module& m)
    {
        std::vector<diagnostic> out;
        for (const std::string& name : m.names())
        {
            auto d = verify(*m.find(name));
            out.insert(out.end(), d.begin(), d.end());
        }
        return out;
    }
} // namespace specula::ir
