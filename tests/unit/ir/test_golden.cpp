// Graphs built through the builder, printed, and compared with checked-in text; and each
// pass's before/after text. See README.md for regenerating.
#include <gtest/gtest.h>

#include "golden.hpp"
#include "ir/builder.hpp"
#include "ir/dot.hpp"
#include "ir/passes/passes.hpp"
#include "ir/printer.hpp"
#include "ir/verifier.hpp"

namespace
{
    using namespace specula::ir;
    using specula::ir::testing::expect_golden;

    value_type f64(shape s)
    {
        return {dtype::float64, std::move(s)};
    }
    scalar f(double v)
    {
        return scalar::of_float(dtype::float64, v);
    }
    scalar i64(std::int64_t v)
    {
        return scalar::of_int(dtype::int64, v);
    }

    void expect_valid(const graph& g)
    {
        EXPECT_EQ(format(verify(g)), "");
    }

    TEST(golden, elementwise_and_broadcasting)
    {
        graph g("elementwise");
        builder b(g);
        const auto x = b.input(f64({4, 8}), "x");
        const auto y = b.input({dtype::int8, shape{8}}, "y");
        const auto s = b.binary(op::ADD, x, y);
        const auto t = b.binary(op::MUL, s, b.constant(f(0.5)));
        const auto e = b.unary(op::EXP, t);
        const auto c = b.binary(op::GT, e, b.constant(f(1.0)));
        const auto w = b.where(c, e, b.unary(op::NEG, e));
        const auto lo = b.constant(f(-2.0));
        const auto hi = b.constant(f(2.0));
        const auto k = b.clip(w, lo, hi);
        b.output(b.cast(k, dtype::float32), "out");
        b.output(b.unary(op::LOGICAL_NOT, c), "mask");
        ASSERT_TRUE(b.ok()) << b.state().message();
        expect_valid(g);
        expect_golden("elementwise.ir", print(g));
    }

    TEST(golden, reductions_and_linalg)
    {
        graph g("reductions");
        builder b(g);
        const auto a = b.input(f64({3, 4}), "a");
        const auto v = b.input(f64({4}), "v");
        const auto bat = b.input({dtype::float32, shape{5, 3, 4}}, "batch");
        b.output(b.reduce(op::SUM, a, {1}), "rowsum");
        b.output(b.reduce(op::MEAN, a, {0}, true), "colmean");
        b.output(b.reduce_all(op::VAR, a, false, 1), "var");
        b.output(b.reduce(op::ARGMAX, a, {-1}), "argmax");
        b.output(b.reduce_all(op::ANY, b.binary(op::LT, a, b.constant(f(0.0)))), "any_neg");
        b.output(b.matmul(a, v), "av");
        b.output(b.matmul(v, v), "vv");
        b.output(b.matmul(bat, b.transpose(a, {})), "batched");
        b.output(b.dot(a, v), "dot");
        b.output(b.outer(v, v), "outer");
        ASSERT_TRUE(b.ok()) << b.state().message();
        expect_valid(g);
        expect_golden("reductions.ir", print(g));
    }

    TEST(golden, movement_indexing_creation)
    {
        graph g("movement");
        builder b(g);
        const auto x = b.input(f64({2, 3, 4}), "x");
        const auto idx = b.input({dtype::int64, shape{5}}, "idx");
        const auto r = b.reshape(x, shape{6, 4});
        const auto e = b.expand_dims(r, {0});
        const auto s = b.squeeze(e);
        b.output(b.broadcast_to(b.reduce(op::MAX, s, {0}), shape{3, 4}), "bcast");
        b.output(b.concatenate({s, s}, 0), "cat");
        b.output(b.stack({s, s, s}, 1), "stack");
        b.output(
            b.slice(x, {slice_item::at(-1), slice_item::new_axis(), slice_item::range(3, 0, -2)}),
            "sliced");
        b.output(b.slice(x, {slice_item::all(),
                             slice_item{slice_item::kind::range, 0, 0, -1, false, false}}),
                 "reversed");
        b.output(b.gather(x, idx, 2), "taken");
        const auto m = b.binary(op::GT, x, b.constant(f(0.0)));
        b.output(b.mask_select(x, m), "selected");
        b.output(b.mask_update(x, m, b.constant(f(0.0))), "relu");
        b.output(b.slice_update(x, b.constant(f(1.0)), {slice_item::range(0, 1)}), "updated");
        b.output(b.gather_update(x, idx, b.constant(f(7.0)), -1), "scattered");
        b.output(b.fill(x, b.constant(f(3.0))), "filled");
        b.output(b.zeros(shape{2, 2}, dtype::int32), "zeros");
        b.output(b.ones(shape{3}, dtype::bool_), "ones");
        b.output(b.full(shape{2}, dtype::float32, f(0.25)), "full");
        b.output(b.arange(i64(2), i64(3), 4, dtype::int64), "arange");
        b.output(b.eye(3, 4, 1, dtype::float64), "eye");
        b.output(b.shape_dim(x, 1), "dim1");
        ASSERT_TRUE(b.ok()) << b.state().message();
        expect_valid(g);
        expect_golden("movement.ir", print(g));
    }

    TEST(golden, control_flow_and_asserts)
    {
        graph g("control");
        builder b(g);
        const auto x = b.input(f64({4}), "x");
        const auto n = b.input({dtype::int64, shape{}}, "n");
        const auto pos = b.reduce_all(op::ALL, b.binary(op::GE, x, b.constant(f(0.0))));
        b.assert_true(pos, 7, "x must be non-negative");
        const region_id then_r = b.new_region();
        const region_id else_r = b.new_region();
        {
            builder::insertion_guard guard(b);
            b.set_insertion_end(then_r);
            b.set_results(then_r, {b.unary(op::SQRT, x)});
            b.set_insertion_end(else_r);
            b.set_results(else_r, {x});
        }
        const auto chosen = b.if_else(pos, then_r, else_r)[0];
        const region_id body = b.new_region({{dtype::int64, shape{}}, f64({4})});
        {
            builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            const auto acc = b.arg(body, 1);
            const auto i = b.cast(b.arg(body, 0), dtype::float64);
            b.set_results(body, {b.binary(op::ADD, acc, b.binary(op::MUL, chosen, i))});
        }
        const auto summed = b.loop(loop_attr{true, false}, n, no_id, {x}, body)[0];
        const region_id wbody = b.new_region({{dtype::int64, shape{}}, f64({4})});
        {
            builder::insertion_guard guard(b);
            b.set_insertion_end(wbody);
            const auto half = b.binary(op::MUL, b.arg(wbody, 1), b.constant(f(0.5)));
            const auto more = b.reduce_all(op::ANY, b.binary(op::GT, half, b.constant(f(1.0))));
            b.set_results(wbody, {more, half});
        }
        const auto start = b.reduce_all(op::ANY, b.binary(op::GT, summed, b.constant(f(1.0))));
        const auto halved = b.loop(loop_attr{false, true}, no_id, start, {summed}, wbody)[0];
        b.output(halved, "result");
        ASSERT_TRUE(b.ok()) << b.state().message();
        expect_valid(g);
        expect_golden("control.ir", print(g));
        expect_golden("control.dot", to_dot(g));
    }

    // fact(n) = n <= 1 ? 1 : n * fact(n - 1), as a recursive subgraph call.
    void build_factorial(module& m)
    {
        graph& g = m.add_graph("fact");
        builder b(g);
        const value_type i64_t{dtype::int64, shape{}};
        const auto n = b.input(i64_t, "n");
        const auto one = b.constant(i64(1));
        const auto base = b.binary(op::LE, n, one);
        const region_id then_r = b.new_region();
        const region_id else_r = b.new_region();
        {
            builder::insertion_guard guard(b);
            b.set_insertion_end(then_r);
            b.set_results(then_r, {one});
            b.set_insertion_end(else_r);
            const auto rec =
                b.call("fact", {b.binary(op::SUB, n, one)}, std::vector<value_type>{i64_t});
            b.set_results(else_r, {b.binary(op::MUL, n, rec[0])});
        }
        b.output(b.if_else(base, then_r, else_r)[0], "result");
        ASSERT_TRUE(b.ok()) << b.state().message();
        graph& main = m.add_graph("main");
        builder mb(main);
        const auto k = mb.input(i64_t, "k");
        mb.output(mb.call("fact", {k})[0], "fact_k");
        ASSERT_TRUE(mb.ok()) << mb.state().message();
    }

    TEST(golden, module_with_recursion)
    {
        module m;
        build_factorial(m);
        EXPECT_EQ(format(verify(m)), "");
        expect_golden("module.ir", print(m));
    }

    TEST(golden, symbolic_dims_inference)
    {
        graph g("symbolic");
        builder b(g);
        const auto x = b.input(f64({4, 8}), "x");
        const auto w = b.input(f64({8, 3}), "w");
        const auto h = b.matmul(x, w);
        const auto r = b.binary(op::MAXIMUM, h, b.constant(f(0.0)));
        const auto first = b.slice(r, {slice_item::range(1, 3)});
        const auto rows = b.shape_dim(r, 0);
        b.output(b.reduce(op::SUM, r, {1}), "rowsum");
        b.output(first, "first");
        b.output(b.concatenate({r, r}, 0), "doubled");
        b.output(rows, "rows");
        ASSERT_TRUE(b.ok()) << b.state().message();
        std::string text = "before:\n" + print(g);
        // The engine saw (4,8) then (3,8): relax the batch dim to a symbol.
        g.get(x).type.dims[0] = dim::symbol(g.new_symbol());
        ASSERT_TRUE(infer_types(g).ok());
        expect_valid(g);
        text += "after:\n" + print(g);
        // Re-running is stable: no new symbols, same text.
        const std::string once = print(g);
        ASSERT_TRUE(infer_types(g).ok());
        EXPECT_EQ(print(g), once);
        expect_golden("infer_symbolic.ir", text);
    }

    TEST(golden, loop_carried_dims_become_symbolic)
    {
        graph g("grow");
        builder b(g);
        const auto x = b.input(f64({2}), "x");
        const auto n = b.input({dtype::int64, shape{}}, "n");
        const region_id body = b.new_region({{dtype::int64, shape{}}, f64({2})});
        {
            builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            const auto acc = b.arg(body, 1);
            // Declared result type f64[2]: the loop is built as if the size were fixed.
            const auto grown = b.create(op::CONCATENATE, {acc, x}, axis_attr{0}, {},
                                        std::vector<value_type>{f64({2})});
            b.set_results(body, {grown[0]});
        }
        const auto res = b.create(op::LOOP, {n, x}, loop_attr{true, false}, {body},
                                  std::vector<value_type>{f64({2})});
        b.output(res[0], "all");
        ASSERT_TRUE(b.ok()) << b.state().message();
        EXPECT_NE(format(verify(g)), "");
        ASSERT_TRUE(infer_types(g).ok());
        expect_valid(g);
        expect_golden("infer_loop.ir", print(g));
    }

    graph pass_input()
    {
        graph g("passes");
        builder b(g);
        const auto x = b.input(f64({4}), "x");
        const auto two = b.constant(f(2.0));
        const auto three = b.constant(f(3.0));
        const auto six = b.binary(op::MUL, two, three);
        const auto a1 = b.binary(op::ADD, x, six);
        const auto a2 = b.binary(op::ADD, six, x); // same as a1 (commutative)
        const auto dead = b.unary(op::EXP, a2);    // unused
        (void)dead;
        const auto p = b.binary(op::MUL, a1, a2);
        const auto q = b.unary(op::SQRT, p);
        const auto s = b.reduce_all(op::SUM, q);
        const auto ok = b.binary(op::GT, s, b.constant(f(0.0)));
        b.assert_true(ok, 1, "sum must be positive");
        const auto ci = b.constant(
            constant_attr::from_values(dtype::int32, shape{3}, {i64(1), i64(2), i64(3)}));
        const auto cj = b.binary(op::LEFT_SHIFT, ci, b.constant(scalar::of_int(dtype::int32, 4)));
        const auto cf = b.cast(cj, dtype::float64);
        b.output(b.binary(op::ADD, cf, b.reduce_all(op::SUM, q)), "y");
        b.output(b.unary(op::NEG, q), "z");
        return g;
    }

    TEST(golden, passes_before_after)
    {
        graph g = pass_input();
        ASSERT_EQ(format(verify(g)), "");
        std::string text = "input:\n" + print(g);
        const int folded = fold_constants(g);
        text += "\nafter fold_constants (" + std::to_string(folded) + "):\n" + print(g);
        const int merged = eliminate_common_subexpressions(g);
        text += "\nafter cse (" + std::to_string(merged) + "):\n" + print(g);
        const int removed = eliminate_dead_code(g);
        text += "\nafter dce (" + std::to_string(removed) + "):\n" + print(g);
        const int groups = fuse_elementwise(g);
        text += "\nafter fuse_elementwise (" + std::to_string(groups) + "):\n" + print(g);
        text += "\nmemory plan:\n" + plan_memory(g).to_string(g);
        expect_valid(g);
        expect_golden("passes.ir", text);
        expect_golden("passes.dot", to_dot(g));
    }
} // namespace
