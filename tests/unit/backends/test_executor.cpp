// The common executor on the reference backend: ordering, loops with carried
// values, conditionals, recursion through named subgraphs, asserts, symbolic
// shapes, data-dependent shapes and "unimplemented" fallback.

#include "backends/reference/reference_backend.hpp"
#include "graph_helpers.hpp"
#include "ir/builder.hpp"

#include <gtest/gtest.h>

namespace
{
    using namespace specula;
    using namespace specula::backends;
    using namespace specula::backends::testing;
    using ir::dtype;
    using ir::op;

    const ir::value_type f64_vec4{dtype::float64, ir::shape{4}};
    const ir::value_type i64_scalar{dtype::int64, ir::shape{}};
    const ir::value_type f64_scalar{dtype::float64, ir::shape{}};
    const ir::value_type b1_scalar{dtype::bool_, ir::shape{}};

    run_result compile_and_run(const ir::graph& g, const std::vector<buffer>& inputs)
    {
        reference::reference_backend ref;
        auto exe = ref.compile(g, target{});
        EXPECT_TRUE(exe) << (exe ? "" : exe.error().to_string());
        if (!exe)
        {
            return {exe.error(), {}, std::nullopt, {}};
        }
        return exe.value()->run(inputs);
    }

    TEST(executor, straight_line_graph)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input(f64_vec4, "x");
        auto one = b.constant(ir::scalar::of_float(dtype::float64, 1.0));
        auto y = b.binary(op::ADD, b.binary(op::MUL, x, x), one);
        b.output(y, "y");
        b.output(b.reduce_all(op::SUM, y), "total");
        ASSERT_TRUE(b.ok()) << b.state().message();
        auto r = compile_and_run(g, {f64({4}, {1, 2, 3, 4})});
        ASSERT_TRUE(r.state) << r.state.to_string();
        EXPECT_EQ(doubles(r.outputs[0]), (std::vector<double>{2, 5, 10, 17}));
        EXPECT_EQ(doubles(r.outputs[1]), (std::vector<double>{34}));
    }

    TEST(executor, loop_with_trip_count_carries_values)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input(f64_vec4, "x");
        auto trip = b.input(i64_scalar, "n");
        auto zero = b.zeros(ir::shape{4}, dtype::float64);
        auto count = b.constant(ir::scalar::of_int(dtype::int64, 0));
        auto body = b.new_region({i64_scalar, f64_vec4, i64_scalar});
        {
            ir::builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            auto acc = b.binary(op::ADD, b.arg(body, 1), x);
            auto sum_i = b.binary(op::ADD, b.arg(body, 2), b.arg(body, 0));
            b.set_results(body, {acc, sum_i});
        }
        auto outs = b.loop(ir::loop_attr{true, false}, trip, ir::no_id, {zero, count}, body);
        b.output(outs[0], "acc");
        b.output(outs[1], "sum_i");
        ASSERT_TRUE(b.ok()) << b.state().message();
        auto r = compile_and_run(g, {f64({4}, {1, 2, 3, 4}), i64({}, {5})});
        ASSERT_TRUE(r.state) << r.state.to_string();
        EXPECT_EQ(doubles(r.outputs[0]), (std::vector<double>{5, 10, 15, 20}));
        EXPECT_EQ(doubles(r.outputs[1]), (std::vector<double>{0 + 1 + 2 + 3 + 4}));
        auto none = compile_and_run(g, {f64({4}, {1, 2, 3, 4}), i64({}, {0})});
        ASSERT_TRUE(none.state);
        EXPECT_EQ(doubles(none.outputs[0]), (std::vector<double>{0, 0, 0, 0}));
    }

    TEST(executor, loop_hands_carried_values_on_in_parallel)
    {
        // `a, b = b + 1, a` per trip: the second result is the first
        // argument, read before that argument takes its new value.
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto a0 = b.input(f64_vec4, "a");
        auto b0 = b.input(f64_vec4, "b");
        auto trip = b.input(i64_scalar, "n");
        auto one = b.constant(ir::scalar::of_float(dtype::float64, 1.0));
        auto body = b.new_region({i64_scalar, f64_vec4, f64_vec4});
        {
            ir::builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            b.set_results(body, {b.binary(op::ADD, b.arg(body, 2), one), b.arg(body, 1)});
        }
        auto outs = b.loop(ir::loop_attr{true, false}, trip, ir::no_id, {a0, b0}, body);
        b.output(outs[0], "a");
        b.output(outs[1], "b");
        ASSERT_TRUE(b.ok()) << b.state().message();
        auto r =
            compile_and_run(g, {f64({4}, {1, 2, 3, 4}), f64({4}, {10, 20, 30, 40}), i64({}, {3})});
        ASSERT_TRUE(r.state) << r.state.to_string();
        // (a, b): (1, 10) -> (11, 1) -> (2, 11) -> (12, 2)
        EXPECT_EQ(doubles(r.outputs[0]), (std::vector<double>{12, 22, 32, 42}));
        EXPECT_EQ(doubles(r.outputs[1]), (std::vector<double>{2, 3, 4, 5}));
    }

    TEST(executor, loop_with_condition)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto v0 = b.input(f64_scalar, "v");
        auto limit = b.constant(ir::scalar::of_float(dtype::float64, 100.0));
        auto two = b.constant(ir::scalar::of_float(dtype::float64, 2.0));
        auto go = b.binary(op::LT, v0, limit);
        auto body = b.new_region({i64_scalar, f64_scalar});
        {
            ir::builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            auto v = b.binary(op::MUL, b.arg(body, 1), two);
            b.set_results(body, {b.binary(op::LT, v, limit), v});
        }
        auto outs = b.loop(ir::loop_attr{false, true}, ir::no_id, go, {v0}, body);
        b.output(outs[0], "v");
        ASSERT_TRUE(b.ok()) << b.state().message();
        auto r = compile_and_run(g, {f64({}, {3})});
        ASSERT_TRUE(r.state) << r.state.to_string();
        EXPECT_EQ(doubles(r.outputs[0]), (std::vector<double>{192}));
        auto skip = compile_and_run(g, {f64({}, {500})});
        EXPECT_EQ(doubles(skip.outputs[0]), (std::vector<double>{500}));
    }

    TEST(executor, conditional_takes_one_branch)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input(f64_vec4, "x");
        auto zero = b.constant(ir::scalar::of_float(dtype::float64, 0.0));
        auto cond = b.binary(op::GT, b.reduce_all(op::SUM, x), zero);
        auto then_r = b.new_region();
        auto else_r = b.new_region();
        {
            ir::builder::insertion_guard guard(b);
            b.set_insertion_end(then_r);
            b.set_results(then_r, {b.binary(op::ADD, x, x)});
            b.set_insertion_end(else_r);
            b.set_results(else_r, {b.unary(op::NEG, x)});
        }
        b.output(b.if_else(cond, then_r, else_r)[0], "y");
        ASSERT_TRUE(b.ok()) << b.state().message();
        EXPECT_EQ(doubles(compile_and_run(g, {f64({4}, {1, 2, 3, -1})}).outputs[0]),
                  (std::vector<double>{2, 4, 6, -2}));
        EXPECT_EQ(doubles(compile_and_run(g, {f64({4}, {1, 2, 3, -9})}).outputs[0]),
                  (std::vector<double>{-1, -2, -3, 9}));
    }

    // fact(n) = n <= 1 ? 1 : n * fact(n - 1), as a named graph calling itself.
    void build_factorial(ir::module& m)
    {
        ir::graph& g = m.add_graph("fact");
        ir::builder b(g);
        auto n = b.input(i64_scalar, "n");
        auto one = b.constant(ir::scalar::of_int(dtype::int64, 1));
        auto then_r = b.new_region();
        auto else_r = b.new_region();
        {
            ir::builder::insertion_guard guard(b);
            b.set_insertion_end(then_r);
            b.set_results(then_r, {one});
            b.set_insertion_end(else_r);
            auto rec = b.call("fact", {b.binary(op::SUB, n, one)},
                              std::vector<ir::value_type>{i64_scalar});
            b.set_results(else_r, {b.binary(op::MUL, n, rec[0])});
        }
        b.output(b.if_else(b.binary(op::LE, n, one), then_r, else_r)[0], "r");
        ASSERT_TRUE(b.ok()) << b.state().message();
    }

    TEST(executor, recursion_through_named_subgraph)
    {
        ir::module m;
        build_factorial(m);
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto n = b.input(i64_scalar, "n");
        b.output(b.call("fact", {n})[0], "r");
        ASSERT_TRUE(b.ok()) << b.state().message();
        auto r = compile_and_run(g, {i64({}, {10})});
        ASSERT_TRUE(r.state) << r.state.to_string();
        EXPECT_EQ(r.outputs[0].element_as_int(0), 3628800);
        // Deeper than the executor allows: an error value, not a stack overflow.
        auto deep = compile_and_run(g, {i64({}, {100000})});
        EXPECT_EQ(deep.state.code(), status_code::runtime_error);
        EXPECT_TRUE(deep.outputs.empty());
    }

    TEST(executor, assert_stops_the_run_and_publishes_nothing)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input(f64_vec4, "x");
        auto y = b.binary(op::MUL, x, x);
        b.output(y, "y");
        auto limit = b.constant(ir::scalar::of_float(dtype::float64, 10.0));
        b.assert_true(b.reduce_all(op::ALL, b.binary(op::LT, y, limit)), 7, "y < 10");
        b.output(b.unary(op::SQRT, y), "z");
        ASSERT_TRUE(b.ok()) << b.state().message();
        auto fired = compile_and_run(g, {f64({4}, {1, 2, 3, 4})});
        EXPECT_EQ(fired.state.code(), status_code::assert_failed);
        ASSERT_TRUE(fired.exit.has_value());
        EXPECT_EQ(fired.exit->exit_id, 7u);
        EXPECT_EQ(fired.exit->reason, "y < 10");
        EXPECT_EQ(fired.exit->graph, "main");
        ASSERT_NE(fired.exit->node, ir::no_id);
        EXPECT_EQ(g.get_node(fired.exit->node).code, op::ASSERT);
        EXPECT_NE(fired.state.message().find("node " + std::to_string(fired.exit->node)),
                  std::string::npos);
        EXPECT_TRUE(fired.outputs.empty());
        auto passed = compile_and_run(g, {f64({4}, {1, 2, 3, 0})});
        ASSERT_TRUE(passed.state) << passed.state.to_string();
        EXPECT_FALSE(passed.exit.has_value());
        EXPECT_EQ(passed.outputs.size(), 2u);
    }

    TEST(executor, assert_inside_loop_reports_its_exit)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto trip = b.input(i64_scalar, "n");
        auto three = b.constant(ir::scalar::of_int(dtype::int64, 3));
        auto body = b.new_region({i64_scalar, i64_scalar});
        {
            ir::builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            b.assert_true(b.binary(op::LT, b.arg(body, 0), three), 42, "iteration < 3");
            b.set_results(body, {b.binary(op::ADD, b.arg(body, 1), b.arg(body, 0))});
        }
        auto zero = b.constant(ir::scalar::of_int(dtype::int64, 0));
        b.output(b.loop(ir::loop_attr{true, false}, trip, ir::no_id, {zero}, body)[0], "s");
        ASSERT_TRUE(b.ok()) << b.state().message();
        auto ok = compile_and_run(g, {i64({}, {3})});
        ASSERT_TRUE(ok.state);
        EXPECT_EQ(ok.outputs[0].element_as_int(0), 3);
        auto fired = compile_and_run(g, {i64({}, {10})});
        ASSERT_TRUE(fired.exit.has_value());
        EXPECT_EQ(fired.exit->exit_id, 42u);
        EXPECT_TRUE(fired.outputs.empty());
    }

    // A loop that rewrites one row of a carried table per iteration, the row
    // computed from the table as the previous iteration left it (row i from
    // rows i and i - 1, wrapping): the executor may run the update in place
    // (loop_carried.cpp) but must give the sequential result and leave the
    // table it started from untouched. With `read_after`, the old table is
    // also read after the update, which rules the in-place update out.
    void check_row_updates(bool read_after)
    {
        const ir::value_type table{dtype::float64, ir::shape{4, 2}};
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto t0 = b.input(table, "t");
        auto trip = b.input(i64_scalar, "n");
        auto body = b.new_region({i64_scalar, table, f64_scalar});
        {
            ir::builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            auto i = b.arg(body, 0);
            auto t = b.arg(body, 1);
            auto prev = b.binary(op::SUB, i, b.constant(ir::scalar::of_int(dtype::int64, 1)));
            auto row = b.binary(op::ADD,
                                b.binary(op::MUL, b.gather(t, i, 0),
                                         b.constant(ir::scalar::of_float(dtype::float64, 2.0))),
                                b.gather(t, prev, 0));
            auto updated = b.gather_update(t, i, row, 0);
            auto seen = b.arg(body, 2);
            if (read_after)
            {
                seen = b.binary(op::ADD, seen, b.reduce_all(op::SUM, b.gather(t, i, 0)));
            }
            b.set_results(body, {updated, seen});
        }
        auto outs = b.loop(ir::loop_attr{true, false}, trip, ir::no_id,
                           {t0, b.constant(ir::scalar::of_float(dtype::float64, 0.0))}, body);
        b.output(outs[0], "t");
        b.output(outs[1], "seen");
        ASSERT_TRUE(b.ok()) << b.state().message();
        std::vector<double> start{1, 2, 3, 4, 5, 6, 7, 8};
        std::vector<double> want = start;
        double seen = 0;
        for (int i = 0; i < 4; ++i)
        {
            const int prev = (i + 3) % 4;
            for (int c = 0; c < 2; ++c)
            {
                want[i * 2 + c] = want[i * 2 + c] * 2.0 + want[prev * 2 + c];
            }
            if (read_after)
            {
                // The old table: row i before this iteration's update.
                seen += (want[i * 2] - want[prev * 2]) / 2.0 +
                        (want[i * 2 + 1] - want[prev * 2 + 1]) / 2.0;
            }
        }
        reference::reference_backend ref;
        auto exe = ref.compile(g, target{});
        ASSERT_TRUE(exe) << exe.error().to_string();
        int in_place = 0;
        for (const auto& region : exe.value()->main().m_regions)
        {
            for (const compiled_node& cn : region)
            {
                in_place += cn.m_carried_arg != ir::no_id ? 1 : 0;
            }
        }
        EXPECT_EQ(in_place, read_after ? 0 : 1);
        buffer input = f64({4, 2}, start);
        for (int run = 0; run < 2; ++run)
        {
            auto r = exe.value()->run({input, i64({}, {4})});
            ASSERT_TRUE(r.state) << r.state.to_string();
            EXPECT_EQ(doubles(r.outputs[0]), want);
            EXPECT_EQ(doubles(r.outputs[1]), (std::vector<double>{seen}));
            EXPECT_EQ(doubles(input), start);
        }
    }

    TEST(executor, loop_carried_table_rows_update_in_place)
    {
        check_row_updates(false);
    }

    // The loop's own copy of a table it updates in place is kept by the arena
    // across runs: a run whose caller let the last outputs go allocates
    // nothing, and one whose caller still holds the table gets a new copy,
    // the held one keeping its rows.
    TEST(executor, loop_carried_table_copy_is_reused_across_runs)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        const ir::value_type table{dtype::float64, ir::shape{4, 2}};
        auto t0 = b.input(table, "t");
        auto trip = b.input(i64_scalar, "n");
        auto body = b.new_region({i64_scalar, table});
        {
            ir::builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            auto i = b.arg(body, 0);
            auto t = b.arg(body, 1);
            auto row = b.binary(op::MUL, b.gather(t, i, 0),
                                b.constant(ir::scalar::of_float(dtype::float64, 3.0)));
            b.set_results(body, {b.gather_update(t, i, row, 0)});
        }
        auto outs = b.loop(ir::loop_attr{true, false}, trip, ir::no_id, {t0}, body);
        b.output(outs[0], "t");
        ASSERT_TRUE(b.ok()) << b.state().message();
        reference::reference_backend ref;
        auto exe = ref.compile(g, target{});
        ASSERT_TRUE(exe) << exe.error().to_string();
        const std::vector<double> start{1, 2, 3, 4, 5, 6, 7, 8};
        buffer input = f64({4, 2}, start);
        const buffer three = i64({}, {3});
        const std::vector<double> want{3, 6, 9, 12, 15, 18, 7, 8};
        std::int64_t allocations = 0;
        for (int run = 0; run < 3; ++run)
        {
            const std::int64_t before = buffer::allocation_count();
            auto r = exe.value()->run({input, three});
            ASSERT_TRUE(r.state) << r.state.to_string();
            EXPECT_EQ(doubles(r.outputs[0]), want);
            allocations = buffer::allocation_count() - before;
        }
        EXPECT_EQ(allocations, 0);
        auto held = exe.value()->run({input, three});
        ASSERT_TRUE(held.state);
        auto next = exe.value()->run({input, i64({}, {2})});
        ASSERT_TRUE(next.state);
        EXPECT_NE(next.outputs[0].data(), held.outputs[0].data());
        EXPECT_EQ(doubles(next.outputs[0]), (std::vector<double>{3, 6, 9, 12, 5, 6, 7, 8}));
        EXPECT_EQ(doubles(held.outputs[0]), want);
        EXPECT_EQ(doubles(input), start);
    }

    TEST(executor, loop_carried_table_read_after_its_update)
    {
        check_row_updates(true);
    }

    // One-row GATHER / GATHER_UPDATE at a 0-d int64 index are moved by the
    // executor itself (loop_carried.cpp, move_row()): the same rows as the
    // kernels, negative indices counted from the end, an index out of range
    // the kernels' runtime error; values that broadcast run the kernel.
    TEST(executor, row_moves_match_the_indexing_kernels)
    {
        const ir::value_type table{dtype::float64, ir::shape{3, 2}};
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto t = b.input(table, "t");
        auto i = b.input(i64_scalar, "i");
        auto j = b.input(i64_scalar, "j");
        auto row = b.gather(t, i, 0);
        auto doubled =
            b.binary(op::MUL, row, b.constant(ir::scalar::of_float(dtype::float64, 2.0)));
        auto updated = b.gather_update(t, j, doubled, 0);
        auto filled =
            b.gather_update(updated, i, b.constant(ir::scalar::of_float(dtype::float64, 7.0)), 0);
        b.output(row, "row");
        b.output(updated, "updated");
        b.output(filled, "filled");
        ASSERT_TRUE(b.ok()) << b.state().message();
        reference::reference_backend ref;
        auto exe = ref.compile(g, target{});
        ASSERT_TRUE(exe) << exe.error().to_string();
        int moves = 0;
        for (const auto& region : exe.value()->main().m_regions)
        {
            for (const compiled_node& cn : region)
            {
                moves += cn.m_row_move ? 1 : 0;
            }
        }
        EXPECT_EQ(moves, 3);
        const std::vector<double> start{1, 2, 3, 4, 5, 6};
        buffer input = f64({3, 2}, start);
        auto r = exe.value()->run({input, i64({}, {-1}), i64({}, {0})});
        ASSERT_TRUE(r.state) << r.state.to_string();
        EXPECT_EQ(doubles(r.outputs[0]), (std::vector<double>{5, 6}));
        EXPECT_EQ(doubles(r.outputs[1]), (std::vector<double>{10, 12, 3, 4, 5, 6}));
        EXPECT_EQ(doubles(r.outputs[2]), (std::vector<double>{10, 12, 3, 4, 7, 7}));
        EXPECT_EQ(doubles(input), start);
        auto out_of_range = exe.value()->run({input, i64({}, {3}), i64({}, {0})});
        EXPECT_EQ(out_of_range.state.code(), status_code::runtime_error);
        auto below = exe.value()->run({input, i64({}, {0}), i64({}, {-4})});
        EXPECT_EQ(below.state.code(), status_code::runtime_error);
        EXPECT_EQ(doubles(input), start);
    }

    TEST(executor, symbolic_dims_bind_per_run)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        const ir::shape dyn(std::vector<ir::dim>{ir::dim::symbol(g.new_symbol())});
        auto x = b.input({dtype::float64, dyn}, "x");
        auto y = b.input({dtype::float64, dyn}, "y");
        auto s = b.binary(op::ADD, x, y);
        b.output(s, "s");
        b.output(b.mask_select(
                     s, b.binary(op::GT, s, b.constant(ir::scalar::of_float(dtype::float64, 2.0)))),
                 "big");
        ASSERT_TRUE(b.ok()) << b.state().message();
        auto r3 = compile_and_run(g, {f64({3}, {1, 2, 3}), f64({3}, {0, 1, 0})});
        ASSERT_TRUE(r3.state) << r3.state.to_string();
        EXPECT_EQ(doubles(r3.outputs[0]), (std::vector<double>{1, 3, 3}));
        EXPECT_EQ(doubles(r3.outputs[1]), (std::vector<double>{3, 3}));
        auto r5 = compile_and_run(g, {f64({5}, {1, 2, 3, 4, 5}), f64({5}, {0, 0, 0, 0, 0})});
        ASSERT_TRUE(r5.state) << r5.state.to_string();
        EXPECT_EQ(r5.outputs[1].shape(), (std::vector<std::int64_t>{3}));
        // ?0 is one size for the whole run.
        auto bad = compile_and_run(g, {f64({3}, {1, 2, 3}), f64({2}, {0, 1})});
        EXPECT_EQ(bad.state.code(), status_code::invalid_argument);
    }

    TEST(executor, input_type_mismatch_is_an_error_value)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        b.output(b.unary(op::NEG, b.input(f64_vec4, "x")), "y");
        auto r = compile_and_run(g, {i64({4}, {1, 2, 3, 4})});
        EXPECT_EQ(r.state.code(), status_code::invalid_argument);
        auto missing = compile_and_run(g, {});
        EXPECT_EQ(missing.state.code(), status_code::invalid_argument);
    }

    // Implements ADD only; everything else is "unimplemented".
    class add_only_backend final : public backend
    {
    private:
        std::string_view name_impl() const override { return "add_only"; }
        result<std::unique_ptr<kernel>> compile_node_impl(const ir::graph& g, const ir::node& n,
                                                          const target& t) const override
        {
            if (n.code != op::ADD)
            {
                return status::unimplemented("add only");
            }
            return m_ref.compile_node(g, n, t);
        }
        reference::reference_backend m_ref;
    };

    TEST(executor, unimplemented_falls_back_or_is_reported)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input(f64_vec4, "x");
        b.output(b.unary(op::EXP, b.binary(op::ADD, x, x)), "y");
        ASSERT_TRUE(b.ok());
        add_only_backend partial;
        auto alone = partial.compile(g, target{});
        ASSERT_FALSE(alone);
        EXPECT_EQ(alone.error().code(), status_code::unimplemented);
        EXPECT_NE(alone.error().message().find("exp"), std::string::npos);

        reference::reference_backend ref;
        auto mixed = partial.compile(g, target{}, &ref);
        ASSERT_TRUE(mixed) << mixed.error().to_string();
        std::vector<std::string> served;
        for (const auto& cn : mixed.value()->main().m_regions[g.body()])
        {
            served.push_back(cn.m_backend);
        }
        EXPECT_EQ(served,
                  (std::vector<std::string>{"executor", "add_only", "reference", "executor"}));
        auto r = mixed.value()->run({f64({4}, {0, 0, 0, 0})});
        ASSERT_TRUE(r.state);
        EXPECT_EQ(doubles(r.outputs[0]), (std::vector<double>{1, 1, 1, 1}));
    }

    TEST(executor, reference_is_host_only)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        b.output(b.unary(op::NEG, b.input(f64_vec4, "x")), "y");
        reference::reference_backend ref;
        auto exe = ref.compile(g, target{device{device_kind::cuda, 0}, true});
        ASSERT_FALSE(exe);
        EXPECT_EQ(exe.error().code(), status_code::unimplemented);
    }

    TEST(executor, runtime_errors_are_values)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input({dtype::int64, ir::shape{2}}, "x");
        auto e = b.input({dtype::int64, ir::shape{2}}, "e");
        b.output(b.binary(op::POW, x, e), "p");
        ASSERT_TRUE(b.ok());
        auto r = compile_and_run(g, {i64({2}, {2, 3}), i64({2}, {2, -1})});
        EXPECT_EQ(r.state.code(), status_code::runtime_error);
        EXPECT_TRUE(r.outputs.empty());
    }
} // namespace
