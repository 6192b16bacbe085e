// Property tests on random graphs: every pass keeps the graph valid and keeps every
// output and assert; CSE leaves no duplicates; DCE leaves nothing dead; fusion groups
// are same-shape elementwise and acyclic; the memory plan never lets two simultaneously
// live values share a buffer and uses in place only where legal.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <random>
#include <set>

#include "ir/builder.hpp"
#include "ir/infer.hpp"
#include "ir/passes/passes.hpp"
#include "ir/printer.hpp"
#include "ir/verifier.hpp"

namespace
{
    using namespace specula::ir;

    class random_graph
    {
    public:
        random_graph(graph& g, unsigned seed) : m_graph(g), m_builder(g), m_rng(seed) {}

        void build(int steps)
        {
            const int inputs = 2 + pick(2);
            for (int i = 0; i < inputs; ++i)
            {
                m_pool.push_back(m_builder.input(random_type()));
            }
            for (int i = 0; i < 3; ++i)
            {
                m_pool.push_back(random_constant());
            }
            for (int i = 0; i < steps; ++i)
            {
                step(m_builder.insertion_region());
            }
            for (int i = 0; i < 1 + pick(3); ++i)
            {
                m_builder.output(any());
            }
        }

        bool ok() const { return m_builder.ok(); }

    private:
        int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(m_rng); }

        value_type random_type()
        {
            static const shape shapes[] = {shape{4, 3}, shape{3}, shape{1, 3}, shape{4, 1},
                                           shape{}};
            static const dtype types[] = {dtype::float64, dtype::float32, dtype::int32,
                                          dtype::bool_, dtype::int8};
            return {types[pick(5)], shapes[pick(5)]};
        }

        value_id random_constant()
        {
            const value_type t = random_type();
            std::vector<scalar> values;
            for (std::int64_t i = 0; i < *t.dims.num_elements(); ++i)
            {
                const int v = pick(7) - 3;
                values.push_back(is_float(t.elem) ? scalar::of_float(t.elem, v * 0.5)
                                                  : scalar::of_int(t.elem, v));
            }
            return m_builder.constant(constant_attr::from_values(t.elem, t.dims, values));
        }

        value_id any()
        {
            return m_pool[static_cast<size_t>(pick(static_cast<int>(m_pool.size())))];
        }

        // Creates the node only if the type rules accept it, so the builder never
        // enters its sticky error state.
        void try_create(op code, std::vector<value_id> inputs, attribute attr)
        {
            infer_request req;
            req.code = code;
            req.attr = &attr;
            for (value_id v : inputs)
            {
                req.inputs.push_back(m_graph.type_of(v));
            }
            req.fresh_symbol = [this]() { return m_graph.new_symbol(); };
            if (infer_output_types(req).ok())
            {
                m_pool.push_back(m_builder.create(code, std::move(inputs), std::move(attr))[0]);
            }
        }

        void step(region_id here)
        {
            static const op unary[] = {op::NEG,   op::ABS,    op::SQRT,       op::EXP,
                                       op::FLOOR, op::SQUARE, op::LOGICAL_NOT};
            static const op binary[] = {op::ADD,         op::SUB,        op::MUL, op::DIV,
                                        op::MAXIMUM,     op::MINIMUM,    op::LT,  op::EQ,
                                        op::LOGICAL_AND, op::BITWISE_AND};
            switch (pick(9))
            {
            case 0:
            case 1:
                try_create(unary[pick(7)], {any()}, none_attr{});
                break;
            case 2:
            case 3:
            case 4:
                try_create(binary[pick(10)], {any(), any()}, none_attr{});
                break;
            case 5:
                try_create(op::WHERE, {any(), any(), any()}, none_attr{});
                break;
            case 6:
                try_create(op::CAST, {any()}, cast_attr{pick(2) ? dtype::float64 : dtype::int32});
                break;
            case 7:
            {
                const value_id x = any();
                const int rank = m_graph.type_of(x).dims.rank();
                reduce_attr a{{}, true, pick(2) == 0, 0};
                if (rank > 0 && pick(2))
                {
                    a = reduce_attr{{pick(rank)}, false, pick(2) == 0, 0};
                }
                try_create(op::SUM, {x}, a);
                break;
            }
            default:
                if (pick(2) && here == m_graph.body())
                {
                    add_if();
                }
                else
                {
                    add_assert();
                }
            }
            if (pick(6) == 0)
            {
                duplicate_last();
            }
        }

        void duplicate_last()
        {
            const value_id v = m_pool.back();
            const node& n = m_graph.get_node(m_graph.get(v).def);
            if (n.code != op::CONSTANT && !has(n.code, prop::BOUNDARY) && n.regions.empty())
            {
                try_create(n.code, n.inputs, n.attr);
            }
        }

        void add_assert()
        {
            const value_id x = any();
            infer_request req;
            if (m_graph.type_of(x).elem != dtype::bool_)
            {
                return;
            }
            const value_id all = m_builder.reduce_all(op::ANY, x);
            m_builder.assert_true(all, static_cast<std::uint32_t>(pick(100)), "random");
        }

        void add_if()
        {
            const value_id x = any();
            if (m_graph.type_of(x).elem != dtype::bool_)
            {
                return;
            }
            const value_id c = m_builder.reduce_all(op::ALL, x);
            const value_type want = m_graph.type_of(any());
            region_id regions[2];
            const size_t pool_before = m_pool.size();
            for (region_id& r : regions)
            {
                r = m_builder.new_region();
                builder::insertion_guard guard(m_builder);
                m_builder.set_insertion_end(r);
                for (int i = 0; i < 3; ++i)
                {
                    step(r);
                }
                value_id result = no_id;
                for (size_t k = m_pool.size(); k-- > 0 && result == no_id;)
                {
                    if (m_graph.type_of(m_pool[k]) == want)
                    {
                        result = m_pool[k];
                    }
                }
                m_builder.set_results(r, {result});
                m_pool.resize(pool_before); // region values are not visible after it
            }
            m_pool.push_back(m_builder.if_else(c, regions[0], regions[1])[0]);
        }

        graph& m_graph;
        builder m_builder;
        std::mt19937 m_rng;
        std::vector<value_id> m_pool;
    };

    std::multiset<std::string> effects(const graph& g)
    {
        std::multiset<std::string> out;
        for (node_id n : g.walk())
        {
            const node& nd = g.get_node(n);
            if (has(nd.code, prop::SIDE_EFFECT))
            {
                out.insert(std::string(mnemonic(nd.code)) + print_attr(nd.attr));
            }
        }
        return out;
    }

    void collect_uses(const graph& g, region_id r, std::set<value_id>& used)
    {
        for (node_id n : g.get_region(r).nodes)
        {
            const node& nd = g.get_node(n);
            used.insert(nd.inputs.begin(), nd.inputs.end());
            for (region_id child : nd.regions)
            {
                collect_uses(g, child, used);
            }
        }
        used.insert(g.get_region(r).results.begin(), g.get_region(r).results.end());
    }

    void check_no_duplicates(const graph& g)
    {
        for (node_id a : g.walk())
        {
            for (node_id b : g.walk())
            {
                const node& x = g.get_node(a);
                const node& y = g.get_node(b);
                if (a >= b || x.parent != y.parent || x.code != y.code ||
                    has(x.code, prop::SIDE_EFFECT) || has(x.code, prop::BOUNDARY) ||
                    has(x.code, prop::CONTROL_FLOW))
                {
                    continue;
                }
                EXPECT_FALSE(x.inputs == y.inputs && x.attr == y.attr &&
                             g.type_of(x.outputs[0]) == g.type_of(y.outputs[0]))
                    << "duplicate " << mnemonic(x.code) << " nodes " << a << " and " << b;
            }
        }
    }

    void check_nothing_dead(const graph& g)
    {
        std::set<value_id> used;
        collect_uses(g, g.body(), used);
        for (node_id n : g.walk())
        {
            const node& nd = g.get_node(n);
            if (has(nd.code, prop::SIDE_EFFECT) || has(nd.code, prop::BOUNDARY) ||
                nd.code == op::IF)
            {
                continue;
            }
            bool any_used = false;
            for (value_id v : nd.outputs)
            {
                any_used = any_used || used.count(v);
            }
            EXPECT_TRUE(any_used) << "dead " << mnemonic(nd.code) << " node " << n;
        }
    }

    // Contract each group to one unit; the unit graph must be acyclic.
    void check_fusion(const graph& g)
    {
        std::map<int, value_type> group_type;
        std::map<int, region_id> group_region;
        const auto unit = [&](node_id n)
        {
            const int grp = g.get_node(n).group;
            return grp >= 0 ? -1 - grp : static_cast<int>(n);
        };
        std::map<int, std::set<int>> preds;
        for (node_id n : g.walk())
        {
            const node& nd = g.get_node(n);
            if (nd.group >= 0)
            {
                EXPECT_TRUE(has(nd.code, prop::ELEMENTWISE));
                const value_type& t = g.type_of(nd.outputs[0]);
                auto [it, fresh] = group_type.emplace(nd.group, t);
                EXPECT_TRUE(fresh || it->second.dims == t.dims)
                    << "group " << nd.group << " mixes shapes";
                auto [rit, rfresh] = group_region.emplace(nd.group, nd.parent);
                EXPECT_TRUE(rfresh || rit->second == nd.parent) << "group spans regions";
            }
            for (value_id v : operands_with_captures(g, n))
            {
                const node_id d = g.get(v).def;
                if (d != no_id && g.get_node(d).parent == nd.parent && unit(d) != unit(n))
                {
                    preds[unit(n)].insert(unit(d));
                }
            }
        }
        std::map<int, int> state; // 1 visiting, 2 done
        std::function<bool(int)> cyclic = [&](int u)
        {
            if (state[u] == 1)
            {
                return true;
            }
            if (state[u] == 2)
            {
                return false;
            }
            state[u] = 1;
            for (int p : preds[u])
            {
                if (cyclic(p))
                {
                    return true;
                }
            }
            state[u] = 2;
            return false;
        };
        for (const auto& [u, ps] : preds)
        {
            EXPECT_FALSE(cyclic(u)) << "fusion groups form a cycle";
        }
    }

    // Liveness recomputed here, independently of the planner, over the body region.
    void check_memory(const graph& g, const memory_plan& plan)
    {
        const auto& body = g.get_region(g.body()).nodes;
        std::map<value_id, std::int64_t> def_at;
        std::map<value_id, std::int64_t> last;
        for (size_t i = 0; i < body.size(); ++i)
        {
            const node& n = g.get_node(body[i]);
            for (value_id v : n.outputs)
            {
                def_at[v] = last[v] = static_cast<std::int64_t>(i);
            }
            std::set<value_id> used(n.inputs.begin(), n.inputs.end());
            for (region_id r : n.regions)
            {
                collect_uses(g, r, used);
            }
            for (value_id v : used)
            {
                if (def_at.count(v))
                {
                    last[v] = n.code == op::OUTPUT
                                  ? INT64_MAX
                                  : std::max(last[v], static_cast<std::int64_t>(i));
                }
            }
        }
        std::vector<value_id> planned;
        for (const auto& [v, at] : def_at)
        {
            if (plan.kind[v] == storage::planned)
            {
                planned.push_back(v);
            }
        }
        const auto in_place_pair = [&](value_id in, value_id out)
        {
            const node& n = g.get_node(g.get(out).def);
            const int k = plan.in_place_input[n.id];
            return k >= 0 && n.inputs[static_cast<size_t>(k)] == in;
        };
        for (value_id u : planned)
        {
            for (value_id v : planned)
            {
                if (u >= v || plan.buffer_of[u] != plan.buffer_of[v])
                {
                    continue;
                }
                const bool overlap = std::max(def_at[u], def_at[v]) <= std::min(last[u], last[v]);
                EXPECT_TRUE(!overlap || in_place_pair(u, v) || in_place_pair(v, u))
                    << "values " << u << " and " << v << " share buffer " << plan.buffer_of[u]
                    << " while live";
            }
        }
        for (node_id n : body)
        {
            const int k = plan.in_place_input[n];
            if (k < 0)
            {
                continue;
            }
            const node& nd = g.get_node(n);
            const value_id in = nd.inputs[static_cast<size_t>(k)];
            EXPECT_EQ(plan.kind[in], storage::planned) << "in place over an input or constant";
            EXPECT_EQ(g.type_of(in), g.type_of(nd.outputs[0]));
            EXPECT_EQ(last[in], def_at[nd.outputs[0]]) << "in place over a value still needed";
        }
    }

    TEST(random_graphs, passes_preserve_invariants)
    {
        int fused = 0;
        int in_place = 0;
        for (unsigned seed = 1; seed <= 150; ++seed)
        {
            graph g("random");
            random_graph gen(g, seed);
            gen.build(40);
            ASSERT_TRUE(gen.ok()) << seed;
            ASSERT_EQ(format(verify(g)), "") << "seed " << seed << "\n" << print(g);
            const auto before = effects(g);
            fold_constants(g);
            ASSERT_EQ(format(verify(g)), "") << "fold, seed " << seed;
            eliminate_common_subexpressions(g);
            ASSERT_EQ(format(verify(g)), "") << "cse, seed " << seed;
            check_no_duplicates(g);
            eliminate_dead_code(g);
            ASSERT_EQ(format(verify(g)), "") << "dce, seed " << seed;
            check_nothing_dead(g);
            EXPECT_EQ(effects(g), before) << "an output or assert was lost, seed " << seed;
            fused += fuse_elementwise(g);
            check_fusion(g);
            const memory_plan plan = plan_memory(g);
            check_memory(g, plan);
            for (int k : plan.in_place_input)
            {
                in_place += k >= 0;
            }
            ASSERT_FALSE(::testing::Test::HasFailure()) << "seed " << seed << "\n" << print(g);
        }
        EXPECT_GT(fused, 50);
        EXPECT_GT(in_place, 50);
    }

    TEST(random_graphs, inference_is_idempotent)
    {
        for (unsigned seed = 200; seed <= 260; ++seed)
        {
            graph g("random");
            random_graph gen(g, seed);
            gen.build(30);
            const std::string before = print(g);
            ASSERT_TRUE(infer_types(g).ok()) << seed;
            EXPECT_EQ(print(g), before) << seed;
        }
    }
} // namespace

namespace
{
    // Passes must scale to converter-sized graphs (thousands of nodes) without
    // quadratic blow-ups dominating compile time.
    TEST(random_graphs, large_graph_passes_finish_quickly)
    {
        graph g("large");
        builder b(g);
        std::mt19937 rng(7);
        std::vector<value_id> pool{b.input({dtype::float64, shape{64}}),
                                   b.input({dtype::float64, shape{64}})};
        static const op ops[] = {op::ADD, op::MUL, op::SUB, op::MAXIMUM};
        for (int i = 0; i < 4000; ++i)
        {
            const auto pick = [&](size_t window)
            {
                const size_t lo = pool.size() > window ? pool.size() - window : 0;
                return pool[lo + rng() % (pool.size() - lo)];
            };
            if (i % 50 == 49)
            {
                pool.push_back(b.binary(op::ADD, pick(4), b.reduce(op::SUM, pick(4), {0}, true)));
            }
            else
            {
                pool.push_back(b.binary(ops[rng() % 4], pick(8), pick(8)));
            }
        }
        b.output(pool.back());
        ASSERT_TRUE(b.ok());
        const auto start = std::chrono::steady_clock::now();
        fold_constants(g);
        eliminate_common_subexpressions(g);
        eliminate_dead_code(g);
        fuse_elementwise(g);
        const memory_plan plan = plan_memory(g);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_TRUE(verify(g).empty());
        EXPECT_LT(plan.buffers.size(), 64u);
        EXPECT_LT(seconds, 5.0);
    }
} // namespace
