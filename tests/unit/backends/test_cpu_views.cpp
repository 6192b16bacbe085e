// Movement ops as zero-copy views on the CPU backend, read by elementwise
// kernels, fused groups, BLAS and sums: every result bit for bit against
// NumPy (evaluated in this process on the same inputs), against the same
// graph with views off, and against the reference backend where that one is
// exact (everything but BLAS products).

#include "views_support.hpp"

#include "backends/reference/reference_backend.hpp"

#include <gtest/gtest.h>

namespace
{
    using namespace specula;
    using namespace specula::views_test;
    using backends::buffer;
    using ir::slice_item;

    void expect_numpy(const std::string& expr, const graph_fn& body, const std::vector<buffer>& ins,
                      run_options opt = {})
    {
        const buffer want = numpy_eval(expr, ins);
        std::vector<std::string> nodes;
        auto got = run_graph(body, ins, opt, 2, &nodes);
        ASSERT_EQ(got.size(), 1u) << expr;
        EXPECT_EQ(got[0].shape(), want.shape()) << expr;
        EXPECT_EQ(got[0].dtype(), want.dtype()) << expr;
        EXPECT_EQ(bytes_of(got[0]), bytes_of(want))
            << expr << " (views " << opt.views << ", fuse " << opt.fuse << ", plan " << opt.plan
            << ", reference " << opt.reference << ")";
        EXPECT_TRUE(got[0].is_contiguous()) << expr;
        EXPECT_FALSE(got[0].is_view()) << expr;
        if (opt.views && !opt.reference)
        {
            for (const std::string& n : nodes)
            {
                const bool movement = n.rfind("transpose", 0) == 0 || n.rfind("slice", 0) == 0 ||
                                      n.rfind("expand_dims", 0) == 0 ||
                                      n.rfind("squeeze", 0) == 0 ||
                                      n.rfind("broadcast_to", 0) == 0 || n.rfind("reshape", 0) == 0;
                EXPECT_TRUE(!movement || n.find(":cpu") != std::string::npos) << n;
            }
        }
    }

    // Views on, views off, and the reference backend when it is exact there
    // (its BLAS-free products and its transcendental functions are not).
    void expect_all(const std::string& expr, const graph_fn& body, const std::vector<buffer>& ins,
                    bool reference_exact = true)
    {
        expect_numpy(expr, body, ins);
        run_options off;
        off.views = false;
        expect_numpy(expr, body, ins, off);
        run_options unfused;
        unfused.fuse = false;
        unfused.plan = false;
        expect_numpy(expr, body, ins, unfused);
        if (reference_exact)
        {
            run_options ref;
            ref.reference = true;
            expect_numpy(expr, body, ins, ref);
        }
    }

    // Products: only views are bit-identical to NumPy. With copies, `a.T @ b`
    // becomes a NoTrans gemm on the copy (NumPy passes Trans) and a strided
    // operand a gemm (NumPy runs its own loop): both differ in the last bits.
    void expect_product(const std::string& expr, const graph_fn& body,
                        const std::vector<buffer>& ins)
    {
        expect_numpy(expr, body, ins);
        run_options unplanned;
        unplanned.plan = false;
        expect_numpy(expr, body, ins, unplanned);
    }

    constexpr auto f64 = ir::dtype::float64;
    constexpr auto f32 = ir::dtype::float32;

    TEST(cpu_views, transpose_into_elementwise)
    {
        const std::vector<buffer> ins{random_buffer(f64, {37, 53}, 1),
                                      random_buffer(f64, {53, 37}, 2)};
        expect_all(
            "a.T * b + np.exp(a.T)",
            [](ir::builder& b, const std::vector<ir::value_id>& x)
            {
                auto t = b.transpose(x[0], {1, 0});
                b.output(
                    b.binary(ir::op::ADD, b.binary(ir::op::MUL, t, x[1]), b.unary(ir::op::EXP, t)));
            },
            ins, false);
    }

    TEST(cpu_views, transpose_3d_and_transposes_of_slices)
    {
        const std::vector<buffer> ins{random_buffer(f64, {4, 5, 6}, 3)};
        expect_all(
            "np.tanh(np.transpose(a, (2, 0, 1))) - a.T[:, 0:1, :].transpose(0, 2, 1)",
            [](ir::builder& b, const std::vector<ir::value_id>& x)
            {
                auto t = b.transpose(x[0], {2, 0, 1});
                auto r = b.transpose(x[0], {2, 1, 0});
                auto s = b.slice(r, {slice_item::all(), slice_item::range(0, 1)});
                auto u = b.transpose(s, {0, 2, 1});
                b.output(b.binary(ir::op::SUB, b.unary(ir::op::TANH, t), u));
            },
            ins, false);
    }

    TEST(cpu_views, slices_with_steps_into_elementwise)
    {
        const std::vector<buffer> ins{random_buffer(f64, {64, 66}, 4)};
        // The heat-step pattern: shifted interior slices of one grid.
        expect_all(
            "a[1:-1, 2:] + a[1:-1, :-2] - 2.0 * a[2:, 1:-1]",
            [](ir::builder& b, const std::vector<ir::value_id>& x)
            {
                auto r = slice_item::range(1, -1);
                auto right = b.slice(x[0], {r, slice_item::range(2, 66)});
                auto left = b.slice(x[0], {r, slice_item::range(0, -2)});
                auto down = b.slice(x[0], {slice_item::range(2, 64), r});
                auto two = b.constant(ir::scalar::of_float(f64, 2.0));
                b.output(b.binary(ir::op::SUB, b.binary(ir::op::ADD, right, left),
                                  b.binary(ir::op::MUL, two, down)));
            },
            ins);
        // Negative and larger steps, slices of slices.
        expect_all(
            "(a[::-1, ::-3][1:-1] * a[1:-1, ::3])[::2] - a[::2, 1::3][:31]",
            [](ir::builder& b, const std::vector<ir::value_id>& x)
            {
                slice_item rev;
                rev.step = -1;
                slice_item rev3;
                rev3.step = -3;
                slice_item step3;
                step3.step = 3;
                slice_item step2;
                step2.step = 2;
                slice_item from1 = step3;
                from1.start = 1;
                from1.has_start = true;
                auto r = slice_item::range(1, -1);
                auto back = b.slice(b.slice(x[0], {rev, rev3}), {r});
                auto fwd = b.slice(x[0], {r, step3});
                auto other = b.slice(b.slice(x[0], {step2, from1}), {slice_item::range(0, 31)});
                auto prod = b.slice(b.binary(ir::op::MUL, back, fwd), {step2});
                b.output(b.binary(ir::op::SUB, prod, other));
            },
            ins);
    }

    TEST(cpu_views, index_newaxis_expand_squeeze_broadcast_reshape)
    {
        const std::vector<buffer> ins{random_buffer(f64, {6, 1, 8}, 5), random_buffer(f64, {8}, 6)};
        expect_all(
            "np.squeeze(a)[3, None, :] * np.expand_dims(b, 0) + "
            "np.broadcast_to(b, (6, 8)).reshape(2, 3, 8)[1]",
            [](ir::builder& b, const std::vector<ir::value_id>& x)
            {
                auto sq = b.squeeze(x[0]);
                auto row =
                    b.slice(sq, {slice_item::at(3), slice_item::new_axis(), slice_item::all()});
                auto e = b.expand_dims(x[1], {0});
                auto bc = b.broadcast_to(x[1], ir::shape{6, 8});
                auto rs = b.reshape(bc, ir::shape{2, 3, 8});
                auto one = b.slice(rs, {slice_item::at(1)});
                b.output(b.binary(ir::op::ADD, b.binary(ir::op::MUL, row, e), one));
            },
            ins);
    }

    TEST(cpu_views, reshape_of_a_strided_input_copies)
    {
        const std::vector<buffer> ins{random_buffer(f64, {6, 4}, 7)};
        expect_all(
            "a.T.reshape(3, 8) * 3.0",
            [](ir::builder& b, const std::vector<ir::value_id>& x)
            {
                auto rs = b.reshape(b.transpose(x[0], {1, 0}), ir::shape{3, 8});
                b.output(b.binary(ir::op::MUL, rs, b.constant(ir::scalar::of_float(f64, 3.0))));
            },
            ins);
    }

    TEST(cpu_views, an_output_that_is_a_view_is_a_copy)
    {
        const std::vector<buffer> ins{random_buffer(f64, {5, 7}, 8)};
        expect_all(
            "a.T[1:4]",
            [](ir::builder& b, const std::vector<ir::value_id>& x)
            {
                auto t = b.transpose(x[0], {1, 0});
                b.output(b.slice(t, {slice_item::range(1, 4)}));
            },
            ins);
        auto out = run_graph(
            [](ir::builder& b, const std::vector<ir::value_id>& x) {
                b.output(b.transpose(x[0], {1, 0}));
            },
            ins, run_options{});
        ASSERT_EQ(out.size(), 1u);
        EXPECT_NE(out[0].data(), ins[0].data()); // never aliases the input
    }

    graph_fn product(bool dot, int ta, int tb, bool slice_a = false)
    {
        return [=](ir::builder& b, const std::vector<ir::value_id>& x)
        {
            auto a = ta ? b.transpose(x[0], {1, 0}) : x[0];
            if (slice_a)
            {
                slice_item step2;
                step2.step = 2;
                a = b.slice(a, {slice_item::all(), step2});
            }
            auto bb = x.size() > 1 ? x[1] : x[0];
            if (tb)
            {
                bb = b.transpose(bb, {1, 0});
            }
            b.output(dot ? b.dot(a, bb) : b.matmul(a, bb));
        };
    }

    void expect_products(ir::dtype t)
    {
        const auto a = random_buffer(t, {48, 40}, 9);
        const auto b = random_buffer(t, {40, 56}, 10);
        const auto bt = random_buffer(t, {56, 40}, 11);
        const auto at = random_buffer(t, {40, 48}, 12);
        for (bool dot : {false, true})
        {
            const std::string f = dot ? "np.dot" : "np.matmul";
            expect_product(f + "(a, b)", product(dot, 0, 0), {a, b});
            expect_product(f + "(a.T, b)", product(dot, 1, 0), {at, b});
            expect_product(f + "(a, b.T)", product(dot, 0, 1), {a, bt});
            expect_product(f + "(a.T, b.T)", product(dot, 1, 1), {at, bt});
            // syrk: the same memory seen transposed, both ways round.
            expect_product(f + "(a, a.T)", product(dot, 0, 1), {a});
            expect_product(f + "(a.T, a)", product(dot, 1, 0), {a});
            // Not BLAS-able (matmul: NumPy's strided loop; dot: a copy).
            expect_product(f + "(a[:, ::2], b[:20])",
                           [dot](ir::builder& bl, const std::vector<ir::value_id>& x)
                           {
                               slice_item step2;
                               step2.step = 2;
                               auto sa = bl.slice(x[0], {slice_item::all(), step2});
                               auto sb = bl.slice(x[1], {slice_item::range(0, 20)});
                               bl.output(dot ? bl.dot(sa, sb) : bl.matmul(sa, sb));
                           },
                           {a, b});
        }
    }

    // Column @ row (contracted dim 1) with strided operands: NumPy's loop.
    TEST(cpu_views, outer_products_of_views)
    {
        for (ir::dtype t : {f64, f32})
        {
            const auto a = random_buffer(t, {48, 40}, 19);
            const auto h = random_buffer(t, {56, 1}, 20);
            expect_product(
                "np.matmul(a[:, 2:3], b.T)",
                [](ir::builder& b, const std::vector<ir::value_id>& x)
                {
                    auto col = b.slice(x[0], {slice_item::all(), slice_item::range(2, 3)});
                    b.output(b.matmul(col, b.transpose(x[1], {1, 0})));
                },
                {a, h});
            expect_product(
                "np.matmul(a.T[:, 5:6], a[::-7, 1:2].T)",
                [](ir::builder& b, const std::vector<ir::value_id>& x)
                {
                    auto col = b.slice(b.transpose(x[0], {1, 0}),
                                       {slice_item::all(), slice_item::range(5, 6)});
                    slice_item back;
                    back.step = -7;
                    auto row = b.transpose(b.slice(x[0], {back, slice_item::range(1, 2)}), {1, 0});
                    b.output(b.matmul(col, row));
                },
                {a});
        }
    }

    TEST(cpu_views, matmul_and_dot_f64)
    {
        expect_products(f64);
    }
    TEST(cpu_views, matmul_and_dot_f32)
    {
        expect_products(f32);
    }

    TEST(cpu_views, gemv_and_vector_forms)
    {
        for (ir::dtype t : {f64, f32})
        {
            const auto a = random_buffer(t, {40, 48}, 13);
            const auto v = random_buffer(t, {80}, 14);
            for (bool dot : {false, true})
            {
                const std::string f = dot ? "np.dot" : "np.matmul";
                auto op = [dot](ir::builder& b, ir::value_id x, ir::value_id y)
                { return dot ? b.dot(x, y) : b.matmul(x, y); };
                slice_item step2;
                step2.step = 2;
                slice_item rev;
                rev.step = -2;
                // A.T @ x (Trans), x @ A.T, strided and reversed vectors.
                expect_product(
                    f + "(a.T, b[::2])",
                    [=](ir::builder& b, const std::vector<ir::value_id>& x) {
                        b.output(op(b, b.transpose(x[0], {1, 0}), b.slice(x[1], {step2})));
                    },
                    {a, v});
                expect_product(f + "(b[:48], a.T)",
                               [=](ir::builder& b, const std::vector<ir::value_id>& x) {
                                   b.output(op(b, b.slice(x[1], {slice_item::range(0, 48)}),
                                               b.transpose(x[0], {1, 0})));
                               },
                               {a, v});
                expect_product(f + "(a.T, b[::-2])",
                               [=](ir::builder& b, const std::vector<ir::value_id>& x) {
                                   b.output(op(b, b.transpose(x[0], {1, 0}), b.slice(x[1], {rev})));
                               },
                               {a, v});
                expect_product(f + "(b[1::2][:40], b[:40])",
                               [=](ir::builder& b, const std::vector<ir::value_id>& x)
                               {
                                   slice_item odd = step2;
                                   odd.start = 1;
                                   odd.has_start = true;
                                   auto s =
                                       b.slice(b.slice(x[1], {odd}), {slice_item::range(0, 40)});
                                   b.output(op(b, s, b.slice(x[1], {slice_item::range(0, 40)})));
                               },
                               {a, v});
                expect_product(f + "(a[:, ::-1].T, b[:40])",
                               [=](ir::builder& b, const std::vector<ir::value_id>& x)
                               {
                                   slice_item back;
                                   back.step = -1;
                                   auto s = b.slice(x[0], {slice_item::all(), back});
                                   b.output(op(b, b.transpose(s, {1, 0}),
                                               b.slice(x[1], {slice_item::range(0, 40)})));
                               },
                               {a, v});
            }
        }
    }

    // Sums read a view through a staged C-order copy, which is NumPy's order
    // when the reduced run is contiguous (rows at any stride).
    TEST(cpu_views, sum_of_views)
    {
        const std::vector<buffer> ins{random_buffer(f64, {300, 200}, 15)};
        expect_all(
            "np.sum(a[:, 3:150], axis=1)",
            [](ir::builder& b, const std::vector<ir::value_id>& x)
            {
                auto s = b.slice(x[0], {slice_item::all(), slice_item::range(3, 150)});
                b.output(b.reduce(ir::op::SUM, s, {1}));
            },
            ins);
        expect_all(
            "np.sum(a[10:20])",
            [](ir::builder& b, const std::vector<ir::value_id>& x)
            { b.output(b.reduce_all(ir::op::SUM, b.slice(x[0], {slice_item::range(10, 20)}))); },
            ins);
    }

    TEST(cpu_views, one_lane_and_two_agree)
    {
        const std::vector<buffer> ins{random_buffer(f64, {400, 300}, 16),
                                      random_buffer(f64, {300}, 17)};
        auto body = [](ir::builder& b, const std::vector<ir::value_id>& x)
        {
            auto t = b.transpose(x[0], {1, 0});
            auto s = b.slice(t, {slice_item::range(0, 300), slice_item::range(0, 400)});
            auto col = b.expand_dims(x[1], {1});
            b.output(b.unary(ir::op::SIN, b.binary(ir::op::MUL, s, col)));
        };
        run_options one;
        one.threads = 1;
        run_options two;
        two.threads = 2;
        auto r1 = run_graph(body, ins, one);
        auto r2 = run_graph(body, ins, two);
        ASSERT_EQ(r1.size(), 1u);
        ASSERT_EQ(r2.size(), 1u);
        EXPECT_EQ(bytes_of(r1[0]), bytes_of(r2[0]));
        EXPECT_EQ(bytes_of(r1[0]), bytes_of(numpy_eval("np.sin(a.T * b[:, None])", ins)));
    }

    TEST(cpu_views, steady_runs_allocate_nothing)
    {
        const std::vector<buffer> ins{random_buffer(f64, {64, 64}, 18)};
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input({f64, ir::shape{64, 64}});
        auto e = b.unary(ir::op::EXP, x);
        auto t = b.transpose(e, {1, 0});
        auto s = b.slice(t, {slice_item::range(1, 63)});
        auto y = b.binary(ir::op::ADD, s, b.slice(e, {slice_item::range(0, 62)}));
        b.output(
            b.reduce(ir::op::SUM, b.slice(y, {slice_item::all(), slice_item::range(1, 63)}), {1}));
        ASSERT_TRUE(b.ok());
        backends::reference::reference_backend ref;
        backends::cpu::cpu_options copts;
        copts.numpy_loops = numpy_table();
        backends::cpu::cpu_backend cpu(copts);
        auto exe = cpu.compile(g, backends::target{}, &ref);
        ASSERT_TRUE(exe);
        {
            auto warm = exe.value()->run(ins); // first run: blocks and staging
            ASSERT_TRUE(warm.state) << warm.state.to_string();
        }
        const auto before = buffer::allocation_count();
        auto r = exe.value()->run(ins);
        ASSERT_TRUE(r.state) << r.state.to_string();
        // Only the output the caller kept from no earlier run: none.
        EXPECT_EQ(buffer::allocation_count(), before);
        EXPECT_EQ(bytes_of(r.outputs[0]),
                  bytes_of(numpy_eval(
                      "np.sum((np.exp(a).T[1:63] + np.exp(a)[:62])[:, 1:63], axis=1)", ins)));
    }
} // namespace
