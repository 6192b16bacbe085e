// The verifier must reject each kind of malformed graph with a located diagnostic.
#include <gtest/gtest.h>

#include <algorithm>

#include "ir/builder.hpp"
#include "ir/verifier.hpp"

namespace
{
    using namespace specula::ir;

    value_type f64(shape s)
    {
        return {dtype::float64, std::move(s)};
    }
    const value_type i64_scalar{dtype::int64, shape{}};
    const value_type b1_scalar{dtype::bool_, shape{}};

    // The diagnostics mention `needle` somewhere.
    ::testing::AssertionResult fails_with(const graph& g, const std::string& needle)
    {
        const std::string text = format(verify(g));
        if (text.find(needle) != std::string::npos)
        {
            return ::testing::AssertionSuccess() << text;
        }
        return ::testing::AssertionFailure() << "expected '" << needle << "' in:\n" << text;
    }

    TEST(verifier, accepts_a_well_formed_graph)
    {
        graph g;
        builder b(g);
        b.output(b.unary(op::NEG, b.input(f64({2}))));
        EXPECT_TRUE(verify(g).empty());
    }

    TEST(verifier, type_mismatch)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({3}));
        const auto y = b.create(op::ADD, {x, x}, none_attr{}, {},
                                std::vector<value_type>{{dtype::float32, shape{3}}});
        b.output(y[0]);
        EXPECT_TRUE(fails_with(g, "type mismatch on output 0: recorded f32[3], inferred f64[3]"));
        const auto diags = verify(g);
        ASSERT_EQ(diags.size(), 1u);
        EXPECT_EQ(diags[0].node, g.get(y[0]).def);
        EXPECT_EQ(diags[0].op_name, "add");
    }

    TEST(verifier, shape_mismatch)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({3}));
        const auto y = b.input(f64({4}));
        b.create(op::ADD, {x, y}, none_attr{}, {}, std::vector<value_type>{f64({4})});
        EXPECT_TRUE(fails_with(g, "cannot broadcast dims 3 and 4"));
        const auto z = b.create(op::SUM, {x}, reduce_attr{{0}, false, true, 0}, {},
                                std::vector<value_type>{f64({})});
        (void)z;
        EXPECT_TRUE(fails_with(g, "recorded f64[], inferred f64[1]"));
    }

    TEST(verifier, use_before_definition)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({2}));
        const auto y = b.unary(op::NEG, x);
        b.output(b.unary(op::EXP, y));
        auto& nodes = g.get_region(g.body()).nodes;
        std::swap(nodes[1], nodes[2]); // exp now precedes the neg it reads
        EXPECT_TRUE(fails_with(g, "before its definition"));
    }

    TEST(verifier, value_from_sibling_region_does_not_dominate)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({2}));
        const auto c = b.input(b1_scalar);
        const region_id t = b.new_region();
        const region_id e = b.new_region();
        value_id inner = no_id;
        {
            builder::insertion_guard guard(b);
            b.set_insertion_end(t);
            inner = b.unary(op::NEG, x);
            b.set_results(t, {inner});
            b.set_insertion_end(e);
            b.set_results(e, {b.unary(op::EXP, inner)}); // reads the then-branch's value
        }
        b.output(b.if_else(c, t, e)[0]);
        ASSERT_TRUE(b.ok());
        EXPECT_TRUE(fails_with(g, "before its definition"));
    }

    TEST(verifier, loop_body_value_used_outside)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({2}));
        const auto n = b.input(i64_scalar);
        const region_id body = b.new_region({i64_scalar, f64({2})});
        value_id inner = no_id;
        {
            builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            inner = b.unary(op::NEG, b.arg(body, 1));
            b.set_results(body, {inner});
        }
        b.loop(loop_attr{true, false}, n, no_id, {x}, body);
        b.output(inner);
        EXPECT_TRUE(fails_with(g, "before its definition"));
    }

    TEST(verifier, bad_region_arguments)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({2}));
        const auto n = b.input(i64_scalar);
        const region_id body = b.new_region({f64({2})}); // missing the iteration argument
        {
            builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            b.set_results(body, {b.arg(body, 0)});
        }
        b.create(op::LOOP, {n, x}, loop_attr{true, false}, {body},
                 std::vector<value_type>{f64({2})});
        EXPECT_TRUE(fails_with(g, "loop body must take (iteration, carried...)"));

        graph h;
        builder c(h);
        const auto cond = c.input(b1_scalar);
        const region_id t = c.new_region({f64({2})}); // if regions take no arguments
        const region_id e = c.new_region();
        c.set_results(t, {c.arg(t, 0)});
        c.set_results(e, {c.arg(t, 0)});
        c.create(op::IF, {cond}, none_attr{}, {t, e}, std::vector<value_type>{f64({2})});
        EXPECT_TRUE(fails_with(h, "if regions take no arguments"));
    }

    TEST(verifier, malformed_control_flow)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({2}));
        const auto c = b.input(f64({}));
        const region_id t = b.new_region();
        b.set_results(t, {x});
        // One region only, and a float condition.
        b.create(op::IF, {c}, none_attr{}, {t}, std::vector<value_type>{f64({2})});
        EXPECT_TRUE(fails_with(g, "expects 2 regions, has 1"));
        EXPECT_TRUE(fails_with(g, "if takes one 0-d bool condition"));

        graph h;
        builder d(h);
        const auto y = d.input(f64({2}));
        const auto n = d.input(i64_scalar);
        const region_id body = d.new_region({i64_scalar, f64({2})});
        d.set_results(body, {d.arg(body, 0)}); // yields the i64 iteration for an f64 carry
        d.create(op::LOOP, {n, y}, loop_attr{true, false}, {body},
                 std::vector<value_type>{f64({2})});
        EXPECT_TRUE(fails_with(h, "carried value 0 does not fit body argument f64[2]"));

        graph k;
        builder e(k);
        const auto z = e.input(f64({2}));
        const auto cond = e.input(b1_scalar);
        const region_id r1 = e.new_region();
        const region_id r2 = e.new_region();
        e.set_results(r1, {z});
        e.set_results(r2, {z});
        e.if_else(cond, r1, r2);
        // A second op claiming the same regions.
        k.add_node(op::IF, {cond}, {f64({2})}, none_attr{}, {r1, r2}, k.body(),
                   k.get_region(k.body()).nodes.size());
        EXPECT_TRUE(fails_with(k, "is not owned by this node"));
    }

    TEST(verifier, bad_subgraph_calls)
    {
        module m;
        graph& callee = m.add_graph("sq");
        {
            builder b(callee);
            const auto x = b.input(f64({3}));
            b.output(b.binary(op::MUL, x, x));
        }
        graph& g = m.add_graph("main");
        builder b(g);
        const auto x = b.input(f64({3}));
        const auto i = b.input({dtype::int32, shape{3}});
        b.call("nowhere", {x}, std::vector<value_type>{f64({3})});
        b.call("sq", {x, x}, std::vector<value_type>{f64({3})});
        b.call("sq", {i}, std::vector<value_type>{f64({3})});
        b.call("sq", {x}, std::vector<value_type>{{dtype::int64, shape{3}}});
        ASSERT_TRUE(b.ok());
        EXPECT_TRUE(fails_with(g, "calls unknown graph @nowhere"));
        EXPECT_TRUE(fails_with(g, "call of @sq with 2 args / 1 results; callee takes 1 / 1"));
        EXPECT_TRUE(fails_with(g, "argument 0 is i32[3], callee wants f64[3]"));
        EXPECT_TRUE(fails_with(g, "result 0 is i64[3], callee returns f64[3]"));
        EXPECT_TRUE(verify(callee).empty());
    }

    TEST(verifier, boundary_ops_and_attributes)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({2}));
        b.output(x);
        g.add_node(op::OUTPUT, {x}, {}, boundary_attr{0, "again"}, {}, g.body(), 2);
        EXPECT_TRUE(fails_with(g, "duplicate boundary index 0"));

        graph h;
        builder c(h);
        const auto y = c.input(f64({2}));
        h.add_node(op::NEG, {y}, {f64({2})}, axis_attr{1}, {}, h.body(), 1);
        h.add_node(op::ADD, {y}, {f64({2})}, none_attr{}, {}, h.body(), 2);
        EXPECT_TRUE(fails_with(h, "carries the wrong attribute kind"));
        EXPECT_TRUE(fails_with(h, "expects 2 inputs, has 1"));

        graph k;
        builder d(k);
        const auto z = d.input(f64({2}));
        k.add_node(op::ASSERT, {z}, {}, assert_attr{3, "bad"}, {}, k.body(), 1);
        EXPECT_TRUE(fails_with(k, "condition must be a 0-d bool"));
    }

    TEST(verifier, builder_errors_are_sticky_values)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({3}));
        const auto y = b.input(f64({4}));
        EXPECT_EQ(b.binary(op::ADD, x, y), no_id);
        EXPECT_FALSE(b.ok());
        EXPECT_NE(b.state().message().find("cannot broadcast"), std::string::npos);
        EXPECT_EQ(b.unary(op::NEG, x), no_id); // later calls fail too
        EXPECT_EQ(b.binary(op::BITWISE_AND, x, x), no_id);

        graph h;
        builder c(h);
        const auto f = c.input(f64({3}));
        EXPECT_EQ(c.binary(op::BITWISE_AND, f, f), no_id);
        EXPECT_NE(c.state().message().find("no supported loop for (float64, float64)"),
                  std::string::npos)
            << c.state().message();
    }
} // namespace
