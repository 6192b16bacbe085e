// The memory plan with views (plan_memory's `views`): a view has no buffer,
// the value owning its memory stays live while the view is, and nothing runs
// in place over memory a live view reads. Then the same graphs executed with
// the plan against NumPy.

#include "views_support.hpp"

#include "ir/passes/plan_memory.hpp"

#include <gtest/gtest.h>

namespace
{
    using namespace specula;
    using namespace specula::views_test;
    using ir::slice_item;

    constexpr auto f64 = ir::dtype::float64;

    ir::node_id def_of(const ir::graph& g, ir::value_id v)
    {
        return g.get(v).def;
    }

    // y = exp(x); v = y.T; z = neg(x) after y's last direct use; w = v + z.
    TEST(view_plan, a_view_keeps_its_producer_live)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input({f64, ir::shape{8, 8}});
        auto y = b.unary(ir::op::EXP, x);
        auto v = b.transpose(y, {1, 0});
        auto z = b.unary(ir::op::NEG, x);
        auto w = b.binary(ir::op::ADD, v, z);
        b.output(w);
        ASSERT_TRUE(b.ok());
        const auto without = ir::plan_memory(g);
        const auto with = ir::plan_memory(g, {}, {def_of(g, v)});
        // Without knowing, y's buffer would be free for z (y's only direct use is v).
        EXPECT_EQ(without.buffer_of[z], without.buffer_of[y]) << without.to_string(g);
        EXPECT_EQ(with.kind[v], ir::storage::view);
        EXPECT_EQ(with.buffer_of[v], -1);
        EXPECT_EQ(with.alias_of[v], y);
        EXPECT_GE(with.live_last[y], with.live_last[v]);
        EXPECT_NE(with.buffer_of[z], with.buffer_of[y]) << with.to_string(g);
        EXPECT_NE(with.buffer_of[w], with.buffer_of[y]);
    }

    // Chains of views lead back to the owner: s = y.T[1:]; r = s[:, ::2].
    TEST(view_plan, chains_of_views_alias_the_owner)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input({f64, ir::shape{8, 8}});
        auto y = b.unary(ir::op::EXP, x);
        auto t = b.transpose(y, {1, 0});
        auto s = b.slice(t, {slice_item::range(1, 8)});
        slice_item step2;
        step2.step = 2;
        auto r = b.slice(s, {slice_item::all(), step2});
        auto z = b.unary(ir::op::NEG, x);
        auto q = b.unary(ir::op::ABS, z);
        b.output(b.binary(ir::op::ADD, r, b.slice(q, {slice_item::range(1, 8), step2})));
        ASSERT_TRUE(b.ok());
        const auto plan = ir::plan_memory(g, {}, {def_of(g, t), def_of(g, s), def_of(g, r)});
        EXPECT_EQ(plan.alias_of[r], y);
        EXPECT_EQ(plan.alias_of[s], y);
        EXPECT_NE(plan.buffer_of[z], plan.buffer_of[y]);
        EXPECT_NE(plan.buffer_of[q], plan.buffer_of[y]);
    }

    // z = y + y.T may not run in place over y: the view reads y's memory.
    TEST(view_plan, no_in_place_over_memory_a_view_of_the_same_node_reads)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input({f64, ir::shape{8, 8}});
        auto y = b.unary(ir::op::EXP, x);
        auto v = b.transpose(y, {1, 0});
        auto z = b.binary(ir::op::ADD, y, v);
        b.output(z);
        ASSERT_TRUE(b.ok());
        const auto without = ir::plan_memory(g);
        const auto with = ir::plan_memory(g, {}, {def_of(g, v)});
        EXPECT_EQ(without.in_place_input[def_of(g, z)], 0); // the hazard views would bring
        EXPECT_EQ(with.in_place_input[def_of(g, z)], -1) << with.to_string(g);
    }

    // n = neg(y) is y's last direct use, but y.T is read later.
    TEST(view_plan, no_in_place_while_a_view_is_live)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input({f64, ir::shape{8, 8}});
        auto y = b.unary(ir::op::EXP, x);
        auto v = b.transpose(y, {1, 0});
        auto n = b.unary(ir::op::NEG, y);
        auto w = b.binary(ir::op::MUL, v, n);
        b.output(w);
        ASSERT_TRUE(b.ok());
        const auto without = ir::plan_memory(g);
        const auto with = ir::plan_memory(g, {}, {def_of(g, v)});
        EXPECT_EQ(without.in_place_input[def_of(g, n)], 0);
        EXPECT_EQ(with.in_place_input[def_of(g, n)], -1) << with.to_string(g);
        // Once the view is dead, in place is fine again: w over n.
        EXPECT_EQ(with.in_place_input[def_of(g, w)], 1);
    }

    // The graphs above, run with the plan (views on and off) against NumPy.
    TEST(view_plan, planned_runs_match_numpy)
    {
        const std::vector<backends::buffer> ins{random_buffer(f64, {8, 8}, 21)};
        const struct
        {
            const char* expr;
            graph_fn body;
        } cases[] = {
            {"np.exp(a).T + -a",
             [](ir::builder& b, const std::vector<ir::value_id>& x)
             {
                 auto y = b.unary(ir::op::EXP, x[0]);
                 auto v = b.transpose(y, {1, 0});
                 b.output(b.binary(ir::op::ADD, v, b.unary(ir::op::NEG, x[0])));
             }},
            {"np.exp(a) + np.exp(a).T",
             [](ir::builder& b, const std::vector<ir::value_id>& x)
             {
                 auto y = b.unary(ir::op::EXP, x[0]);
                 b.output(b.binary(ir::op::ADD, y, b.transpose(y, {1, 0})));
             }},
            {"np.exp(a).T * -np.exp(a)",
             [](ir::builder& b, const std::vector<ir::value_id>& x)
             {
                 auto y = b.unary(ir::op::EXP, x[0]);
                 auto v = b.transpose(y, {1, 0});
                 b.output(b.binary(ir::op::MUL, v, b.unary(ir::op::NEG, y)));
             }},
        };
        for (const auto& c : cases)
        {
            const auto want = bytes_of(numpy_eval(c.expr, ins));
            for (bool views : {true, false})
            {
                for (bool fuse : {true, false})
                {
                    run_options opt;
                    opt.views = views;
                    opt.fuse = fuse;
                    auto got = run_graph(c.body, ins, opt, 3);
                    ASSERT_EQ(got.size(), 1u);
                    EXPECT_EQ(bytes_of(got[0]), want) << c.expr << " views " << views;
                }
            }
        }
    }
} // namespace
