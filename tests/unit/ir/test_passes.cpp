// Targeted pass behaviour: what DCE keeps, where CSE may merge, what folding refuses,
// fusion legality and memory-planning legality.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "ir/builder.hpp"
#include "ir/passes/passes.hpp"
#include "ir/printer.hpp"
#include "ir/verifier.hpp"

namespace
{
    using namespace specula::ir;

    value_type f64(shape s)
    {
        return {dtype::float64, std::move(s)};
    }
    const value_type b1_scalar{dtype::bool_, shape{}};
    scalar f(double v)
    {
        return scalar::of_float(dtype::float64, v);
    }

    bool is_constant(const graph& g, value_id v)
    {
        return g.get(v).def != no_id && g.get_node(g.get(v).def).code == op::CONSTANT;
    }

    value_id output_value(const graph& g, int i)
    {
        return g.get_node(g.outputs()[static_cast<size_t>(i)]).inputs[0];
    }

    // if (c) { assert(...) } with no results used: the assert must survive DCE.
    TEST(dce, keeps_asserts_inside_regions_and_drops_pure_ones)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({2}));
        const auto c = b.input(b1_scalar);
        const region_id t = b.new_region();
        const region_id e = b.new_region();
        const region_id t2 = b.new_region();
        const region_id e2 = b.new_region();
        {
            builder::insertion_guard guard(b);
            b.set_insertion_end(t);
            b.assert_true(b.reduce_all(op::ALL, b.binary(op::GT, x, b.constant(f(0)))), 4,
                          "positive");
            b.set_insertion_end(t2);
            b.set_results(t2, {b.unary(op::EXP, x)});
            b.set_insertion_end(e2);
            b.set_results(e2, {x});
        }
        b.if_else(c, t, e);
        b.if_else(c, t2, e2); // pure and unused
        b.unary(op::SIN, x);  // unused
        b.output(x);
        ASSERT_TRUE(b.ok());
        EXPECT_EQ(eliminate_dead_code(g), 3); // pure if, its exp, and sin
        EXPECT_TRUE(verify(g).empty()) << format(verify(g));
        const std::string text = print(g);
        EXPECT_NE(text.find("assert"), std::string::npos);
        EXPECT_EQ(text.find("exp"), std::string::npos);
        EXPECT_EQ(text.find("sin"), std::string::npos);
    }

    TEST(dce, calls_are_kept_when_the_callee_asserts)
    {
        module m;
        for (const std::string name : {"checked", "pure"})
        {
            graph& callee = m.add_graph(name);
            builder b(callee);
            const auto x = b.input(b1_scalar);
            if (name == "checked")
            {
                b.assert_true(x, 9, "x");
            }
            b.output(x);
        }
        graph& g = m.add_graph("main");
        builder b(g);
        const auto x = b.input(b1_scalar);
        b.call("checked", {x});
        b.call("pure", {x});
        b.output(x);
        EXPECT_EQ(eliminate_dead_code(g), 1);
        EXPECT_NE(print(g).find("@checked"), std::string::npos);
        EXPECT_EQ(print(g).find("@pure"), std::string::npos);
    }

    // NumPy's view of a dead node: a float op still raises IEEE flags (a
    // RuntimeWarning), an integer division by zero still warns. With
    // keep_signalling those stay; constants, views and quiet int work go.
    TEST(dce, keeps_what_would_signal_when_asked)
    {
        for (bool keep : {false, true})
        {
            graph g;
            builder b(g);
            const auto x = b.input(f64({2, 3}));
            const auto k = b.input({dtype::int64, shape{}});
            b.unary(op::LOG, x);                                                    // dead, float
            b.binary(op::FLOORDIV, k, b.constant(scalar::of_int(dtype::int64, 0))); // dead
            b.transpose(x, {1, 0});                                                 // dead view
            b.binary(op::ADD, k, b.constant(scalar::of_int(dtype::int64, 1)));      // dead, quiet
            const region_id t = b.new_region();
            const region_id e = b.new_region();
            {
                builder::insertion_guard guard(b);
                b.set_insertion_end(t);
                b.unary(op::SQRT, x); // dead, inside a branch
                b.set_results(t, {k});
                b.set_insertion_end(e);
                b.set_results(e, {k});
            }
            b.if_else(b.binary(op::GT, k, b.constant(scalar::of_int(dtype::int64, 0))), t, e);
            b.output(x);
            ASSERT_TRUE(b.ok());
            eliminate_dead_code(g, dce_options{keep});
            EXPECT_TRUE(verify(g).empty()) << format(verify(g));
            const std::string text = print(g);
            EXPECT_EQ(text.find("log") != std::string::npos, keep) << text;
            EXPECT_EQ(text.find("floordiv") != std::string::npos, keep) << text;
            EXPECT_EQ(text.find("sqrt") != std::string::npos, keep) << text;
            EXPECT_EQ(text.find("transpose"), std::string::npos) << text;
            EXPECT_EQ(text.find("add"), std::string::npos) << text;
        }
    }

    TEST(dce, loop_carried_values_stay_live)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({2}));
        const auto n = b.input({dtype::int64, shape{}});
        const region_id body = b.new_region({{dtype::int64, shape{}}, f64({2})});
        {
            builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            b.unary(op::COS, b.arg(body, 1)); // dead inside the body
            b.set_results(body, {b.binary(op::MUL, b.arg(body, 1), x)});
        }
        b.output(b.loop(loop_attr{true, false}, n, no_id, {x}, body)[0]);
        EXPECT_EQ(eliminate_dead_code(g), 1);
        EXPECT_NE(print(g).find("mul"), std::string::npos);
        EXPECT_TRUE(verify(g).empty());
    }

    TEST(cse, merges_into_dominating_scopes_only)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({2}));
        const auto c = b.input(b1_scalar);
        const auto outer = b.unary(op::EXP, x);
        const region_id t = b.new_region();
        const region_id e = b.new_region();
        {
            builder::insertion_guard guard(b);
            b.set_insertion_end(t);
            const auto again = b.unary(op::EXP, x);  // same as outer: merged
            const auto inner = b.unary(op::SQRT, x); // only in then
            b.set_results(t, {b.binary(op::ADD, again, inner)});
            b.set_insertion_end(e);
            b.set_results(e, {b.unary(op::SQRT, x)}); // sibling: not merged with then's
        }
        const auto r = b.if_else(c, t, e)[0];
        b.output(b.binary(op::ADD, r, outer));
        b.output(b.unary(op::SQRT, x));
        b.assert_true(c, 1, "a");
        b.assert_true(c, 1, "a"); // asserts are never merged
        ASSERT_TRUE(b.ok());
        EXPECT_EQ(eliminate_common_subexpressions(g), 1);
        EXPECT_TRUE(verify(g).empty()) << format(verify(g));
        const std::string text = print(g);
        size_t sqrts = 0;
        for (size_t p = text.find("sqrt"); p != std::string::npos; p = text.find("sqrt", p + 1))
        {
            ++sqrts;
        }
        EXPECT_EQ(sqrts, 3u);
    }

    TEST(cse, respects_attributes_and_operand_order)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({2, 3}));
        const auto y = b.input(f64({2, 3}));
        b.output(b.reduce(op::SUM, x, {0}));
        b.output(b.reduce(op::SUM, x, {1}));
        b.output(b.binary(op::SUB, x, y));
        b.output(b.binary(op::SUB, y, x));
        b.output(b.binary(op::MAXIMUM, x, y));
        b.output(b.binary(op::MAXIMUM, y, x));
        EXPECT_EQ(eliminate_common_subexpressions(g), 1);
        EXPECT_EQ(output_value(g, 4), output_value(g, 5));
    }

    TEST(fold, refuses_what_numpy_would_warn_about_or_compute_differently)
    {
        graph g;
        builder b(g);
        const auto big = b.constant(f(1e308));
        const auto zero = b.constant(f(0.0));
        const auto one = b.constant(f(1.0));
        const auto i8max = b.constant(scalar::of_int(dtype::int8, 127));
        const auto i8one = b.constant(scalar::of_int(dtype::int8, 1));
        const auto i8zero = b.constant(scalar::of_int(dtype::int8, 0));
        b.output(b.binary(op::MUL, big, big));           // overflow warning
        b.output(b.binary(op::DIV, one, zero));          // divide-by-zero warning
        b.output(b.unary(op::EXP, one));                 // libm, not folded
        b.output(b.binary(op::ADD, i8max, i8one));       // wraps
        b.output(b.binary(op::FLOORDIV, i8one, i8zero)); // warning
        b.output(b.binary(op::ADD, one, one));           // exact: folded
        const auto sym =
            b.input(f64(shape(std::vector<dim>{dim::symbol(g.new_symbol()), dim::fixed(3)})));
        b.output(b.shape_dim(sym, 1)); // static: folded
        b.output(b.shape_dim(sym, 0)); // symbolic: kept
        ASSERT_TRUE(b.ok());
        EXPECT_EQ(fold_constants(g), 2);
        for (int i = 0; i < 5; ++i)
        {
            EXPECT_FALSE(is_constant(g, output_value(g, i))) << i;
        }
        EXPECT_TRUE(is_constant(g, output_value(g, 5)));
        EXPECT_EQ(
            g.get_node(g.get(output_value(g, 6)).def).attr_as<constant_attr>().element(0).ival, 3);
        EXPECT_FALSE(is_constant(g, output_value(g, 7)));
        EXPECT_TRUE(verify(g).empty()) << format(verify(g));
    }

    TEST(fusion, refuses_cycles_through_non_fusible_ops)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({4}));
        const auto a = b.unary(op::EXP, x);
        const auto s = b.reduce(op::SUM, a, {0}, true); // leaves the group...
        const auto c = b.binary(op::ADD, a, s);         // ...and comes back
        const auto d = b.unary(op::NEG, c);
        b.output(d);
        EXPECT_EQ(fuse_elementwise(g), 1);
        const auto group_of = [&](value_id v) { return g.get_node(g.get(v).def).group; };
        EXPECT_NE(group_of(a), group_of(c));
        EXPECT_EQ(group_of(c), group_of(d));
        EXPECT_GE(group_of(c), 0);
    }

    TEST(fusion, groups_share_one_shape)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({4}));
        const auto y = b.input(f64({3, 4}));
        const auto a = b.unary(op::EXP, x);     // [4]
        const auto c = b.binary(op::ADD, a, y); // [3,4]: a broadcasts, different loop
        const auto d = b.unary(op::NEG, c);
        b.output(d);
        EXPECT_EQ(fuse_elementwise(g), 1);
        EXPECT_EQ(g.get_node(g.get(a).def).group, -1);
        EXPECT_EQ(g.get_node(g.get(c).def).group, g.get_node(g.get(d).def).group);
    }

    // A long accumulation (a loss summed over 60 unrolled time steps) is split into
    // groups whose programs stay small: members plus outside values <= 48.
    TEST(fusion, groups_hold_a_bounded_number_of_values)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({60}));
        auto acc = b.constant(scalar::of_float(dtype::float64, 0.0));
        std::vector<value_id> sums;
        for (int t = 0; t < 60; ++t)
        {
            const auto item = b.slice(x, {slice_item::at(t)});
            acc = b.binary(op::ADD, acc, b.unary(op::NEG, b.unary(op::LOG, item)));
            sums.push_back(acc);
        }
        b.output(acc);
        ASSERT_TRUE(b.ok()) << b.state().message();
        const int groups = fuse_elementwise(g);
        EXPECT_GE(groups, 4);
        std::map<int, std::set<node_id>> members;
        for (node_id n : g.walk())
        {
            if (g.get_node(n).group >= 0)
            {
                members[g.get_node(n).group].insert(n);
            }
        }
        EXPECT_EQ(static_cast<int>(members.size()), groups);
        for (const auto& [group, nodes] : members)
        {
            std::set<value_id> outside;
            for (node_id n : nodes)
            {
                for (value_id v : g.get_node(n).inputs)
                {
                    if (nodes.count(g.get(v).def) == 0)
                    {
                        outside.insert(v);
                    }
                }
            }
            EXPECT_LE(nodes.size() + outside.size(), 48u) << "group " << group;
            EXPECT_GE(nodes.size(), 2u);
        }
    }

    TEST(memory, in_place_only_where_legal)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({8}));
        const auto k = b.constant(
            constant_attr::from_values(dtype::float64, shape{8}, std::vector<scalar>(8, f(1))));
        const auto a = b.unary(op::NEG, x);       // x is a graph input: no
        const auto c = b.binary(op::ADD, k, a);   // k is a constant: only a may be reused
        const auto d = b.unary(op::EXP, c);       // c dead after: yes
        const auto e = b.binary(op::MUL, d, d);   // yes
        const auto h = b.cast(e, dtype::float32); // dtype changes: no
        const auto s = b.unary(op::SQRT, e);      // e still used later by out: no
        b.output(h);
        b.output(s);
        b.output(e);
        const memory_plan plan = plan_memory(g);
        const auto in_place = [&](value_id v) { return plan.in_place_input[g.get(v).def]; };
        EXPECT_EQ(in_place(a), -1);
        EXPECT_EQ(in_place(c), 1);
        EXPECT_EQ(in_place(d), 0);
        EXPECT_EQ(in_place(e), 0);
        EXPECT_EQ(in_place(h), -1);
        EXPECT_EQ(in_place(s), -1);
        EXPECT_EQ(plan.kind[x], storage::external);
        EXPECT_EQ(plan.kind[k], storage::constant);
        EXPECT_NE(plan.buffer_of[s], plan.buffer_of[e]);
    }

    TEST(memory, values_used_inside_a_loop_live_until_it_ends)
    {
        graph g;
        builder b(g);
        const auto x = b.input(f64({4}));
        const auto n = b.input({dtype::int64, shape{}});
        const auto w = b.unary(op::EXP, x); // read by every iteration
        const region_id body = b.new_region({{dtype::int64, shape{}}, f64({4})});
        {
            builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            const auto t = b.binary(op::MUL, b.arg(body, 1), w);
            b.set_results(body, {b.unary(op::NEG, t)});
        }
        const auto r = b.loop(loop_attr{true, false}, n, no_id, {w}, body)[0];
        b.output(r);
        const memory_plan plan = plan_memory(g);
        const node_id loop_node = g.get(r).def;
        // w must not be overwritten by anything inside the loop.
        for (node_id id : g.get_region(body).nodes)
        {
            for (value_id v : g.get_node(id).outputs)
            {
                EXPECT_NE(plan.buffer_of[v], plan.buffer_of[w]) << mnemonic(g.get_node(id).code);
            }
        }
        EXPECT_GE(plan.live_last[w], plan.live_last[g.get_region(body).results[0]]);
        EXPECT_EQ(plan.in_place_input[g.get(g.get_region(body).results[0]).def], 0);
        (void)loop_node;
    }
} // namespace

namespace
{
    using namespace specula::ir;

    // x: f64[?0]; loop carries c = concatenate(c, x) starting from x. The carried
    // size changes, so inference must not leave the input's symbol ?0 on it (the
    // executor holds input symbols fixed for the run).
    TEST(infer_types_pass, growing_carried_value_gets_its_own_symbol)
    {
        module m;
        graph& g = m.add_graph("main");
        builder b(g);
        const value_type dyn{dtype::float64, shape(std::vector<dim>{dim::symbol(g.new_symbol())})};
        const value_type i64_scalar{dtype::int64, shape{}};
        auto x = b.input(dyn, "x");
        auto n = b.input(i64_scalar, "n");
        auto body = b.new_region({i64_scalar, dyn});
        {
            builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            b.set_results(body, {b.concatenate({b.arg(body, 1), x}, 0)});
        }
        b.output(b.loop(loop_attr{true, false}, n, no_id, {x}, body)[0], "c");
        ASSERT_TRUE(b.ok()) << b.state().message();
        ASSERT_TRUE(infer_types(g).ok());
        const dim carried = g.type_of(g.get_region(body).args[1]).dims[0];
        EXPECT_TRUE(carried.is_symbolic());
        EXPECT_NE(carried, dyn.dims[0]);
        ASSERT_TRUE(infer_types(g).ok()); // stable on a second run
        EXPECT_EQ(g.type_of(g.get_region(body).args[1]).dims[0], carried);
    }
} // namespace
