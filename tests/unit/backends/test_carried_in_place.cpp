// Carried values a LOOP updates in place (backends/loop_carried.cpp): a
// SLICE_UPDATE or an elementwise update of a carried array writes the loop's
// own copy instead of copying the whole array every trip, also when names
// trade arrays between trips (`u, u_new = u_new, u` after
// `u_new[1:-1, 1:-1] = f(u)`). Each loop runs on the CPU backend (fused) and
// on the reference backend for several trip counts, twice per executable;
// both must give NumPy's bytes for the same steps, leave the inputs untouched,
// and run in place exactly where it is legal.

#include "views_support.hpp"

#include "backends/reference/reference_backend.hpp"
#include "ir/passes/passes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

namespace
{
    using namespace specula;
    using namespace specula::views_test;
    using backends::buffer;
    using backends::compiled_node;
    using backends::executable;
    using ir::dtype;
    using ir::op;
    using ir::slice_item;

    const ir::value_type trips_type{dtype::int64, ir::shape{}};

    struct compiled
    {
        ir::module m;
        std::unique_ptr<executable> exe;
    };

    // main(inputs of `ins`' types, n: int64) with `body`, fused and compiled.
    std::unique_ptr<compiled> build(const std::vector<buffer>& ins, const graph_fn& body,
                                    bool reference)
    {
        auto c = std::make_unique<compiled>();
        ir::graph& g = c->m.add_graph("main");
        ir::builder b(g);
        std::vector<ir::value_id> args;
        for (const buffer& in : ins)
        {
            args.push_back(b.input({in.dtype(), ir::shape::of(in.shape())}));
        }
        args.push_back(b.input(trips_type, "n"));
        body(b, args);
        EXPECT_TRUE(b.ok()) << b.state().message();
        ir::fuse_elementwise(g);
        backends::reference::reference_backend ref;
        backends::cpu::cpu_options copts;
        copts.numpy_loops = numpy_table();
        backends::cpu::cpu_backend cpu(copts);
        auto exe = reference ? ref.compile(g, backends::target{})
                             : cpu.compile(g, backends::target{}, &ref);
        EXPECT_TRUE(exe) << (exe ? "" : exe.error().to_string());
        if (!exe)
        {
            return nullptr;
        }
        c->exe = std::move(exe.value());
        return c;
    }

    buffer trips(std::int64_t n)
    {
        auto t = buffer::allocate(dtype::int64, {});
        EXPECT_TRUE(t);
        *reinterpret_cast<std::int64_t*>(t->data()) = n;
        return t.value();
    }

    // The LOOP's compiled node and the nodes of its body that write a carried
    // argument in place.
    struct in_place_marks
    {
        std::vector<std::size_t> owned;
        std::vector<op> updates;
    };

    in_place_marks marks_of(const executable& exe)
    {
        in_place_marks m;
        for (const auto& region : exe.main().m_regions)
        {
            for (const compiled_node& cn : region)
            {
                if (cn.p_node->code == op::LOOP)
                {
                    m.owned = cn.m_owned_carried;
                }
                if (cn.m_carried_arg != ir::no_id)
                {
                    m.updates.push_back(cn.p_node->code);
                }
            }
        }
        return m;
    }

    // `numpy[k]` computes output k with the inputs named a, b, ... and the
    // trip count n. Runs every trip count twice on each backend and returns
    // the marks of the CPU executable.
    in_place_marks check_loop(const std::vector<buffer>& ins, const graph_fn& body,
                              const std::vector<std::string>& numpy,
                              const std::vector<std::int64_t>& trip_counts)
    {
        in_place_marks cpu_marks;
        for (bool reference : {false, true})
        {
            auto c = build(ins, body, reference);
            if (!c)
            {
                return {};
            }
            if (!reference)
            {
                cpu_marks = marks_of(*c->exe);
            }
            for (std::int64_t n : trip_counts)
            {
                std::vector<buffer> args(ins);
                args.push_back(trips(n));
                std::vector<std::vector<unsigned char>> before;
                for (const buffer& in : ins)
                {
                    before.push_back(bytes_of(in));
                }
                for (int run = 0; run < 2; ++run)
                {
                    auto r = c->exe->run(args);
                    EXPECT_TRUE(r.state) << r.state.to_string();
                    if (!r.state)
                    {
                        return {};
                    }
                    for (std::size_t k = 0; k < numpy.size(); ++k)
                    {
                        std::string expr = "(n := " + std::to_string(n) + ", " + numpy[k] + ")[-1]";
                        buffer want = numpy_eval(expr, ins);
                        EXPECT_EQ(bytes_of(r.outputs[k]), bytes_of(want))
                            << (reference ? "reference" : "cpu") << ", output " << k << ", " << n
                            << " trips, run " << run;
                    }
                }
                for (std::size_t i = 0; i < ins.size(); ++i)
                {
                    EXPECT_EQ(bytes_of(ins[i]), before[i]) << "input " << i << " was written";
                }
            }
        }
        return cpu_marks;
    }

    const std::vector<slice_item> interior{slice_item::range(1, -1), slice_item::range(1, -1)};

    slice_item from(std::int64_t start)
    {
        slice_item s = slice_item::all();
        s.start = start;
        s.has_start = true;
        return s;
    }

    slice_item upto(std::int64_t stop)
    {
        slice_item s = slice_item::all();
        s.stop = stop;
        s.has_stop = true;
        return s;
    }

    // W5's step: u[1:-1, 1:-1] + 0.2 * (u[2:, 1:-1] + u[:-2, 1:-1] +
    // u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]), NumPy's order.
    ir::value_id stencil(ir::builder& b, ir::value_id u)
    {
        auto c = [&](double v) { return b.constant(ir::scalar::of_float(dtype::float64, v)); };
        auto mid = b.slice(u, interior);
        auto sum = b.binary(op::ADD, b.slice(u, {from(2), interior[1]}),
                            b.slice(u, {upto(-2), interior[1]}));
        sum = b.binary(op::ADD, sum, b.slice(u, {interior[0], from(2)}));
        sum = b.binary(op::ADD, sum, b.slice(u, {interior[0], upto(-2)}));
        auto lap = b.binary(op::SUB, sum, b.binary(op::MUL, c(4.0), mid));
        return b.binary(op::ADD, mid, b.binary(op::MUL, c(0.2), lap));
    }

    const char* numpy_stencil = "s[1].__setitem__((slice(1, -1), slice(1, -1)), s[0][1:-1, 1:-1] + "
                                "0.2 * (s[0][2:, 1:-1] + s[0][:-2, 1:-1] + s[0][1:-1, 2:] + "
                                "s[0][1:-1, :-2] - 4 * s[0][1:-1, 1:-1]))";

    std::string numpy_swaps(int which)
    {
        return std::string("s := [a, b], [(") + numpy_stencil +
               ", s.reverse()) for _ in range(n)], s[" + std::to_string(which) + "]";
    }

    // The stencil's grids swapped every trip: the update's argument is the
    // other name's, so both grids are the loop's own and trade places.
    graph_fn swapped_stencil(bool assert_early)
    {
        return [assert_early](ir::builder& b, const std::vector<ir::value_id>& a)
        {
            const ir::value_type grid = b.target().type_of(a[0]);
            auto body = b.new_region({trips_type, grid, grid});
            {
                ir::builder::insertion_guard guard(b);
                b.set_insertion_end(body);
                auto u = b.arg(body, 1);
                auto next = b.slice_update(b.arg(body, 2), stencil(b, u), interior);
                if (assert_early)
                {
                    auto three = b.constant(ir::scalar::of_int(dtype::int64, 3));
                    b.assert_true(b.binary(op::LT, b.arg(body, 0), three), 7, "trip < 3");
                }
                b.set_results(body, {next, u});
            }
            auto outs = b.loop(ir::loop_attr{true, false}, a[2], ir::no_id, {a[0], a[1]}, body);
            b.output(outs[0], "u");
            b.output(outs[1], "u_new");
        };
    }

    TEST(carried_in_place, swapped_stencil_grids_update_in_place)
    {
        const std::vector<buffer> ins{random_buffer(dtype::float64, {9, 8}, 1),
                                      random_buffer(dtype::float64, {9, 8}, 2)};
        auto marks =
            check_loop(ins, swapped_stencil(false), {numpy_swaps(0), numpy_swaps(1)}, {0, 1, 4, 5});
        EXPECT_EQ(marks.owned, (std::vector<std::size_t>{0, 1}));
        EXPECT_EQ(marks.updates, (std::vector<op>{op::SLICE_UPDATE}));
    }

    // The same grids passed in as one array: the loop's own copies keep them apart.
    TEST(carried_in_place, swapped_grids_starting_from_one_array)
    {
        const buffer one = random_buffer(dtype::float64, {7, 6}, 3);
        check_loop({one, one}, swapped_stencil(false), {numpy_swaps(0), numpy_swaps(1)}, {3, 4});
    }

    // An assert failing in a later trip: the run fails with its exit and the
    // inputs keep their bytes (the trips before wrote only the loop's memory).
    TEST(carried_in_place, an_assert_after_in_place_trips_leaves_the_inputs)
    {
        const std::vector<buffer> ins{random_buffer(dtype::float64, {6, 6}, 4),
                                      random_buffer(dtype::float64, {6, 6}, 5)};
        const auto before0 = bytes_of(ins[0]);
        const auto before1 = bytes_of(ins[1]);
        for (bool reference : {false, true})
        {
            auto c = build(ins, swapped_stencil(true), reference);
            ASSERT_TRUE(c);
            EXPECT_EQ(marks_of(*c->exe).owned, (std::vector<std::size_t>{0, 1}));
            auto r = c->exe->run({ins[0], ins[1], trips(6)});
            ASSERT_TRUE(r.exit.has_value());
            EXPECT_EQ(r.exit->exit_id, 7u);
            EXPECT_TRUE(r.outputs.empty());
            EXPECT_EQ(bytes_of(ins[0]), before0);
            EXPECT_EQ(bytes_of(ins[1]), before1);
            auto ok = c->exe->run({ins[0], ins[1], trips(2)});
            ASSERT_TRUE(ok.state) << ok.state.to_string();
            EXPECT_EQ(bytes_of(ok.outputs[0]),
                      bytes_of(numpy_eval("(n := 2, " + numpy_swaps(0) + ")[-1]", ins)));
        }
    }

    // t[1:3] = t[0:2] * 0.5 + 1, then the sum of t read in the same trip:
    // the new contents (in place is legal) or, in the IR, the argument's old
    // ones after the update (the old array must survive: no in place).
    graph_fn updated_then_read(bool old_value)
    {
        return [old_value](ir::builder& b, const std::vector<ir::value_id>& a)
        {
            const ir::value_type table = b.target().type_of(a[0]);
            const ir::value_type scalar{dtype::float64, ir::shape{}};
            auto body = b.new_region({trips_type, table, scalar});
            {
                ir::builder::insertion_guard guard(b);
                b.set_insertion_end(body);
                auto t = b.arg(body, 1);
                auto v = b.binary(op::ADD,
                                  b.binary(op::MUL, b.slice(t, {slice_item::range(0, 2)}),
                                           b.constant(ir::scalar::of_float(dtype::float64, 0.5))),
                                  b.constant(ir::scalar::of_float(dtype::float64, 1.0)));
                auto next = b.slice_update(t, v, {slice_item::range(1, 3)});
                auto read = b.reduce_all(op::SUM, old_value ? t : next);
                b.set_results(body, {next, b.binary(op::ADD, b.arg(body, 2), read)});
            }
            auto zero = b.constant(ir::scalar::of_float(dtype::float64, 0.0));
            auto outs = b.loop(ir::loop_attr{true, false}, a[1], ir::no_id, {a[0], zero}, body);
            b.output(outs[0], "t");
            b.output(outs[1], "seen");
        };
    }

    std::string numpy_updated_then_read(bool old_value, int which)
    {
        const std::string read = old_value ? "o.sum()" : "s[0].sum()";
        return "s := [a.copy(), 0.0], [(o := s[0].copy(), s[0].__setitem__(slice(1, 3), "
               "s[0][0:2] * 0.5 + 1), s.__setitem__(1, s[1] + " +
               read + ")) for _ in range(n)], s[" + std::to_string(which) + "]";
    }

    TEST(carried_in_place, the_new_contents_read_in_the_same_trip)
    {
        const std::vector<buffer> ins{random_buffer(dtype::float64, {5, 3}, 6)};
        auto marks = check_loop(
            ins, updated_then_read(false),
            {numpy_updated_then_read(false, 0), numpy_updated_then_read(false, 1)}, {0, 3});
        // The table, and the running sum (an elementwise update of itself).
        EXPECT_EQ(marks.owned, (std::vector<std::size_t>{0, 1}));
        EXPECT_EQ(std::count(marks.updates.begin(), marks.updates.end(), op::SLICE_UPDATE), 1);
    }

    TEST(carried_in_place, the_old_contents_read_after_the_update_keep_a_copy)
    {
        const std::vector<buffer> ins{random_buffer(dtype::float64, {5, 3}, 7)};
        auto marks = check_loop(
            ins, updated_then_read(true),
            {numpy_updated_then_read(true, 0), numpy_updated_then_read(true, 1)}, {0, 3});
        EXPECT_TRUE(marks.owned.empty());
        EXPECT_TRUE(marks.updates.empty());
    }

    // t[1:] = t[:-1]: the values are a view of the array written (the CPU
    // backend's slice), so the update may not write over them in place;
    // NumPy copies the overlapping source first.
    TEST(carried_in_place, values_viewing_the_array_written_keep_a_copy)
    {
        const std::vector<buffer> ins{random_buffer(dtype::float64, {6, 2}, 8)};
        graph_fn body = [](ir::builder& b, const std::vector<ir::value_id>& a)
        {
            const ir::value_type table = b.target().type_of(a[0]);
            auto r = b.new_region({trips_type, table});
            {
                ir::builder::insertion_guard guard(b);
                b.set_insertion_end(r);
                auto t = b.arg(r, 1);
                b.set_results(r, {b.slice_update(t, b.slice(t, {upto(-1)}), {from(1)})});
            }
            b.output(b.loop(ir::loop_attr{true, false}, a[1], ir::no_id, {a[0]}, r)[0], "t");
        };
        auto marks = check_loop(
            ins, body,
            {"s := [a.copy()], [s[0].__setitem__(slice(1, None), s[0][:-1]) for _ in range(n)], "
             "s[0]"},
            {0, 1, 3});
        EXPECT_TRUE(marks.owned.empty());
    }

    // A carried view of the array updated in place would change under the
    // next trip's write: no in place.
    TEST(carried_in_place, a_view_of_the_array_carried_on_keeps_a_copy)
    {
        const std::vector<buffer> ins{random_buffer(dtype::float64, {4, 3}, 9)};
        graph_fn body = [](ir::builder& b, const std::vector<ir::value_id>& a)
        {
            const ir::value_type table = b.target().type_of(a[0]);
            const ir::value_type row{dtype::float64, ir::shape{1, 3}};
            auto r = b.new_region({trips_type, table, row});
            {
                ir::builder::insertion_guard guard(b);
                b.set_insertion_end(r);
                auto t = b.arg(r, 1);
                auto v = b.binary(op::ADD, b.arg(r, 2),
                                  b.constant(ir::scalar::of_float(dtype::float64, 1.0)));
                auto next = b.slice_update(t, v, {slice_item::range(0, 1)});
                b.set_results(r, {next, b.slice(next, {slice_item::range(0, 1)})});
            }
            auto first = b.slice(a[0], {slice_item::range(2, 3)});
            auto outs = b.loop(ir::loop_attr{true, false}, a[1], ir::no_id, {a[0], first}, r);
            b.output(outs[0], "t");
            b.output(outs[1], "row");
        };
        const std::string step = "s[0].__setitem__(slice(0, 1), s[1] + 1.0), s.__setitem__(1, "
                                 "s[0][0:1])";
        auto marks =
            check_loop(ins, body,
                       {"s := [a.copy(), a[2:3].copy()], [(" + step + ") for _ in range(n)], s[0]",
                        "s := [a.copy(), a[2:3].copy()], [(" + step + ") for _ in range(n)], s[1]"},
                       {0, 1, 4});
        EXPECT_TRUE(marks.owned.empty());
    }

    // a += w and a second array updated by an elementwise op of itself.
    TEST(carried_in_place, elementwise_updates_of_carried_arrays)
    {
        const std::vector<buffer> ins{random_buffer(dtype::float64, {64}, 10),
                                      random_buffer(dtype::float64, {64}, 11)};
        graph_fn body = [](ir::builder& b, const std::vector<ir::value_id>& a)
        {
            const ir::value_type vec = b.target().type_of(a[0]);
            auto r = b.new_region({trips_type, vec});
            {
                ir::builder::insertion_guard guard(b);
                b.set_insertion_end(r);
                b.set_results(r, {b.binary(op::ADD, b.arg(r, 1), a[1])});
            }
            b.output(b.loop(ir::loop_attr{true, false}, a[2], ir::no_id, {a[0]}, r)[0], "a");
        };
        auto marks = check_loop(
            ins, body, {"s := [a.copy()], [s[0].__iadd__(b) for _ in range(n)], s[0]"}, {0, 1, 5});
        EXPECT_EQ(marks.owned, (std::vector<std::size_t>{0}));
        EXPECT_EQ(marks.updates, (std::vector<op>{op::ADD}));
    }
} // namespace

namespace
{
    // A tree walk's table updated row by row, read before the update inside
    // an IF (a row copied out on one side): the carried values cannot all be
    // owned together (control flow reads the table first), yet the table
    // alone is still written in place, row by row, as before owning arrays
    // together existed (a copy of the whole table per row was W4's forward).
    TEST(carried_in_place, a_table_read_in_an_if_and_updated_by_rows)
    {
        const std::vector<buffer> ins{random_buffer(dtype::float64, {8, 4}, 12),
                                      random_buffer(dtype::float64, {4}, 13)};
        graph_fn body = [](ir::builder& b, const std::vector<ir::value_id>& a)
        {
            const ir::value_type table = b.target().type_of(a[0]);
            const ir::value_type row = b.target().type_of(a[1]);
            auto r = b.new_region({trips_type, table, row});
            {
                ir::builder::insertion_guard guard(b);
                b.set_insertion_end(r);
                const ir::value_id i = b.arg(r, 0);
                auto then_r = b.new_region();
                auto else_r = b.new_region();
                {
                    ir::builder::insertion_guard inner(b);
                    b.set_insertion_end(then_r);
                    b.set_results(then_r, {b.gather(b.arg(r, 1), i, 0)});
                    b.set_insertion_end(else_r);
                    b.set_results(else_r, {b.arg(r, 2)});
                }
                const ir::value_id three = b.constant(ir::scalar::of_int(dtype::int64, 3));
                const ir::value_id picked =
                    b.if_else(b.binary(op::LT, i, three), then_r, else_r)[0];
                const ir::value_id next =
                    b.gather_update(b.arg(r, 1), i, b.binary(op::ADD, picked, b.arg(r, 2)), 0);
                b.set_results(r, {next, picked});
            }
            auto outs = b.loop(ir::loop_attr{true, false}, a[2], ir::no_id, {a[0], a[1]}, r);
            b.output(outs[0], "table");
            b.output(outs[1], "row");
        };
        const std::string walk = "t := a.copy(), h := b.copy(), "
                                 "[(p := (t[i].copy() if i < 3 else h), t.__setitem__(i, p + h), "
                                 "h := p) for i in range(n)]";
        auto marks = check_loop(ins, body, {walk + ", t", walk + ", h"}, {0, 1, 5, 8});
        EXPECT_EQ(marks.owned, (std::vector<std::size_t>{0}));
        EXPECT_EQ(marks.updates, (std::vector<op>{op::GATHER_UPDATE}));
    }
} // namespace
