// Fusion groups, lanes and fallback, checked against the same graph run
// unfused on one lane (itself checked against NumPy by test_cpu_oracle).

#include "cpu_test_support.hpp"

#include "backends/cpu/ew_program.hpp"
#include "backends/cpu/thread_pool.hpp"
#include "backends/reference/reference_backend.hpp"
#include "backends/strided_copy.hpp"
#include "ir/builder.hpp"
#include "ir/passes/fuse_elementwise.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <random>

namespace
{
    using namespace specula;
    using namespace specula::backends;

    buffer random_buffer(ir::dtype t, std::vector<std::int64_t> shape, unsigned seed)
    {
        auto b = buffer::allocate(t, std::move(shape));
        std::mt19937_64 rng(seed);
        std::normal_distribution<double> dist(0.0, 3.0);
        for (std::int64_t i = 0; i < b->size(); ++i)
        {
            const double v = dist(rng);
            if (t == ir::dtype::float64)
            {
                reinterpret_cast<double*>(b->data())[i] = v;
            }
            else
            {
                reinterpret_cast<float*>(b->data())[i] = static_cast<float>(v);
            }
        }
        return b.value();
    }

    // tanh(x * y + exp(-x)) - x, with an interior value (x*y) also returned.
    void build_chain_shape(ir::graph& g, ir::dtype t, const std::vector<std::int64_t>& dims)
    {
        std::vector<ir::dim> sizes;
        for (std::int64_t d : dims)
        {
            sizes.push_back(ir::dim::fixed(d));
        }
        ir::builder b(g);
        auto x = b.input({t, ir::shape(sizes)}, "x");
        auto y = b.input({t, ir::shape(sizes)}, "y");
        auto xy = b.binary(ir::op::MUL, x, y);
        auto e = b.unary(ir::op::EXP, b.unary(ir::op::NEG, x));
        auto s = b.binary(ir::op::ADD, xy, e);
        auto r = b.binary(ir::op::SUB, b.unary(ir::op::TANH, s), x);
        b.output(r, "r");
        b.output(xy, "xy");
        ASSERT_TRUE(b.ok()) << b.state().message();
    }

    void build_chain(ir::graph& g, ir::dtype t, std::int64_t n)
    {
        build_chain_shape(g, t, {n});
    }

    std::vector<buffer> run_chain(bool fuse, int threads, ir::dtype t, std::int64_t n,
                                  int* groups = nullptr, bool plan = true)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        build_chain(g, t, n);
        if (fuse)
        {
            const int k = ir::fuse_elementwise(g);
            if (groups != nullptr)
            {
                *groups = k;
            }
        }
        cpu::cpu_options opts;
        opts.numpy_loops = cpu::testing::numpy_table();
        opts.threads = threads;
        opts.fuse = fuse;
        cpu::cpu_backend be(opts);
        target tgt;
        tgt.plan_memory = plan;
        auto exe = be.compile(g, tgt);
        EXPECT_TRUE(exe) << (exe ? "" : exe.error().to_string());
        if (!exe)
        {
            return {};
        }
        // A group runs as one node: the schedule is shorter than the graph.
        const std::size_t scheduled = exe.value()->main().m_regions[g.body()].size();
        const std::size_t nodes = g.get_region(g.body()).nodes.size();
        if (fuse)
        {
            EXPECT_LT(scheduled, nodes);
        }
        else
        {
            EXPECT_EQ(scheduled, nodes);
        }
        std::vector<buffer> in = {random_buffer(t, {n}, 1), random_buffer(t, {n}, 2)};
        run_result r = exe.value()->run(in);
        // A second run must give the same bytes (recycled group buffers).
        run_result again = exe.value()->run(in);
        EXPECT_TRUE(r.state && again.state) << r.state.to_string();
        for (std::size_t i = 0; i < r.outputs.size(); ++i)
        {
            EXPECT_EQ(0, std::memcmp(r.outputs[i].data(), again.outputs[i].data(),
                                     static_cast<std::size_t>(r.outputs[i].size()) *
                                         r.outputs[i].itemsize()));
        }
        return r.outputs;
    }

    bool same_bytes(const std::vector<buffer>& a, const std::vector<buffer>& b)
    {
        if (a.size() != b.size())
        {
            return false;
        }
        for (std::size_t i = 0; i < a.size(); ++i)
        {
            const auto bytes = static_cast<std::size_t>(a[i].size()) * a[i].itemsize();
            if (a[i].size() != b[i].size() || std::memcmp(a[i].data(), b[i].data(), bytes) != 0)
            {
                for (std::int64_t k = 0; k < a[i].size(); ++k)
                {
                    if (a[i].element_as_double(k) != b[i].element_as_double(k))
                    {
                        ADD_FAILURE()
                            << "output " << i << " element " << k << ": "
                            << a[i].element_as_double(k) << " vs " << b[i].element_as_double(k);
                        break;
                    }
                }
                return false;
            }
        }
        return true;
    }
    // `g` compiled on a CPU backend with NumPy's loops (`fuse`: run the groups
    // fuse_elementwise left as one node each) and run once on `inputs`.
    // `scheduled` gets the length of the main region's schedule.
    std::vector<buffer> run_on_cpu(ir::graph& g, bool fuse, const std::vector<buffer>& inputs,
                                   int threads = 0, std::size_t* scheduled = nullptr)
    {
        cpu::cpu_options opts;
        opts.numpy_loops = cpu::testing::numpy_table();
        opts.threads = threads;
        opts.fuse = fuse;
        cpu::cpu_backend be(opts);
        auto exe = be.compile(g, target{});
        EXPECT_TRUE(exe) << (exe ? "" : exe.error().to_string());
        if (!exe)
        {
            return {};
        }
        if (scheduled != nullptr)
        {
            *scheduled = exe.value()->main().m_regions[g.body()].size();
        }
        run_result r = exe.value()->run(inputs);
        EXPECT_TRUE(r.state) << r.state.to_string();
        return r.outputs;
    }
} // namespace

TEST(cpu_fusion, fused_group_equals_unfused_bitwise)
{
    for (ir::dtype t : {ir::dtype::float64, ir::dtype::float32})
    {
        for (std::int64_t n : {1, 100, 2049, 65536 + 7, 1 << 20})
        {
            for (bool plan : {true, false})
            {
                int groups = 0;
                auto fused = run_chain(true, 2, t, n, &groups, plan);
                auto plain = run_chain(false, 1, t, n, nullptr, plan);
                EXPECT_GE(groups, 1);
                EXPECT_TRUE(same_bytes(fused, plain))
                    << ir::dtype_name(t) << " n=" << n << " plan=" << plan;
            }
        }
    }
}

TEST(cpu_fusion, one_lane_equals_two_lanes_bitwise)
{
    for (bool fuse : {false, true})
    {
        auto one = run_chain(fuse, 1, ir::dtype::float64, 1 << 20);
        auto two = run_chain(fuse, 2, ir::dtype::float64, 1 << 20);
        EXPECT_TRUE(same_bytes(one, two)) << "fuse=" << fuse;
    }
}

TEST(cpu_fusion, pairwise_sum_one_lane_equals_two_lanes)
{
    for (std::int64_t n : {std::int64_t(1) << 20, std::int64_t(3 * 8192 + 5)})
    {
        std::vector<buffer> outs[2];
        for (int threads : {1, 2})
        {
            ir::module m;
            ir::graph& g = m.add_graph("main");
            ir::builder b(g);
            auto x = b.input({ir::dtype::float64, ir::shape{n}}, "x");
            b.output(b.reduce_all(ir::op::SUM, x, false, 0), "s");
            cpu::cpu_options opts;
            opts.threads = threads;
            cpu::cpu_backend be(opts);
            auto exe = be.compile(g, target{});
            ASSERT_TRUE(exe);
            EXPECT_EQ(exe.value()->main().m_regions[0][1].m_backend, "cpu");
            outs[threads - 1] =
                exe.value()->run({random_buffer(ir::dtype::float64, {n}, 5)}).outputs;
        }
        EXPECT_TRUE(same_bytes(outs[0], outs[1]));
    }
}

TEST(cpu_fallback, unimplemented_nodes_go_to_the_fallback)
{
    ir::module m;
    ir::graph& g = m.add_graph("main");
    ir::builder b(g);
    auto x = b.input({ir::dtype::int64, ir::shape{4}}, "x");
    // Integer power stays with the reference backend (NumPy raises on
    // negative exponents through Python), sum of ints too.
    auto p = b.binary(ir::op::POW, x, x);
    b.output(b.reduce_all(ir::op::SUM, p, false, 0), "s");
    ASSERT_TRUE(b.ok());
    cpu::cpu_options opts;
    opts.numpy_loops = cpu::testing::numpy_table();
    cpu::cpu_backend be(opts);
    auto alone = be.compile(g, target{});
    ASSERT_FALSE(alone);
    EXPECT_EQ(alone.error().code(), status_code::unimplemented);
    reference::reference_backend ref;
    auto exe = be.compile(g, target{}, &ref);
    ASSERT_TRUE(exe);
    for (const auto& cn : exe.value()->main().m_regions[0])
    {
        if (cn.p_node->code == ir::op::POW)
        {
            EXPECT_EQ(cn.m_backend, "reference");
        }
    }
    auto in = buffer::allocate(ir::dtype::int64, {4});
    for (int i = 0; i < 4; ++i)
    {
        reinterpret_cast<std::int64_t*>(in->data())[i] = i;
    }
    auto r = exe.value()->run({in.value()});
    ASSERT_TRUE(r.state);
    EXPECT_EQ(r.outputs[0].element_as_int(), 1 + 1 + 4 + 27); // 0**0 == 1
}

TEST(cpu_fallback, transcendental_without_numpy_loops_falls_back)
{
    ir::module m;
    ir::graph& g = m.add_graph("main");
    ir::builder b(g);
    auto x = b.input({ir::dtype::float64, ir::shape{4}}, "x");
    b.output(b.unary(ir::op::EXP, x), "e");
    cpu::cpu_backend be; // no loop table
    auto exe = be.compile(g, target{});
    ASSERT_FALSE(exe);
    EXPECT_EQ(exe.error().code(), status_code::unimplemented);
}

namespace
{
    // a = x*y; s = sum(a); b = a + x; r = b * s: `s` reads the group member
    // `a` before the group's last member, so that group must not run as one
    // node at `r` (the sum would read `a` before it exists).
    std::vector<buffer> run_read_inside(bool fuse)
    {
        const std::int64_t n = 5000;
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input({ir::dtype::float64, ir::shape{n}}, "x");
        auto y = b.input({ir::dtype::float64, ir::shape{n}}, "y");
        auto a = b.binary(ir::op::MUL, x, y);
        auto s = b.reduce_all(ir::op::SUM, a, false, 0);
        auto c = b.binary(ir::op::ADD, a, x);
        b.output(b.binary(ir::op::MUL, b.binary(ir::op::MUL, c, c), s), "r");
        EXPECT_TRUE(b.ok()) << b.state().message();
        if (fuse)
        {
            ir::fuse_elementwise(g);
        }
        return run_on_cpu(
            g, fuse,
            {random_buffer(ir::dtype::float64, {n}, 3), random_buffer(ir::dtype::float64, {n}, 4)});
    }
} // namespace

TEST(cpu_fusion, member_read_before_the_group_ends_is_respected)
{
    auto fused = run_read_inside(true);
    auto plain = run_read_inside(false);
    ASSERT_EQ(fused.size(), 1u);
    EXPECT_TRUE(same_bytes(fused, plain));
}

// The engine reads the calling thread's IEEE flags after a run to decide
// whether NumPy would have warned: an overflow raised only in the second
// lane's share (a worker thread) must show up on the caller.
TEST(cpu_threads, worker_fp_flags_reach_the_caller)
{
    const std::int64_t n = 1 << 20;
    ir::module m;
    ir::graph& g = m.add_graph("main");
    ir::builder b(g);
    auto x = b.input({ir::dtype::float64, ir::shape{n}}, "x");
    b.output(b.binary(ir::op::MUL, x, x), "r");
    ASSERT_TRUE(b.ok());
    cpu::cpu_options opts;
    opts.numpy_loops = cpu::testing::numpy_table();
    opts.threads = 2;
    cpu::cpu_backend be(opts);
    auto exe = be.compile(g, target{});
    ASSERT_TRUE(exe) << exe.error().to_string();
    auto in = buffer::allocate(ir::dtype::float64, {n});
    ASSERT_TRUE(in);
    auto* p = reinterpret_cast<double*>(in->data());
    for (std::int64_t i = 0; i < n; ++i)
    {
        p[i] = 1.5;
    }
    p[n - 1] = 1e200; // only in the last lane's share
    std::feclearexcept(FE_ALL_EXCEPT);
    run_result r = exe.value()->run({in.value()});
    const int flags = std::fetestexcept(FE_OVERFLOW);
    ASSERT_TRUE(r.state) << r.state.to_string();
    EXPECT_TRUE(std::isinf(r.outputs[0].element_as_double(n - 1)));
    EXPECT_NE(flags, 0);
    std::feclearexcept(FE_ALL_EXCEPT);
}

TEST(cpu_threads, split_runs_every_item_once)
{
    // Chunks are claimed by whichever lane is free: however the lanes race,
    // every item runs exactly once, on a valid lane, nested splits inline.
    cpu::thread_pool pool(2);
    for (int round = 0; round < 200; ++round)
    {
        for (std::int64_t items :
             {std::int64_t(1), std::int64_t(7), std::int64_t(100), std::int64_t(1) << 16})
        {
            std::vector<int> hits(static_cast<std::size_t>(items), 0);
            std::atomic<bool> bad_lane{false};
            pool.run_split(items, round % 2 == 0 ? 1 : 100000,
                           [&](int lane, std::int64_t b, std::int64_t e)
                           {
                               bad_lane = bad_lane || lane < 0 || lane >= pool.lanes();
                               pool.run_split(e - b, 100000,
                                              [&](int, std::int64_t b2, std::int64_t e2)
                                              {
                                                  for (std::int64_t i = b + b2; i < b + e2; ++i)
                                                  {
                                                      ++hits[static_cast<std::size_t>(i)];
                                                  }
                                              });
                           });
            EXPECT_FALSE(bad_lane);
            EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), items) << "items " << items;
        }
    }
}

namespace
{
    // x = x * c_k + 1, `steps` times: every step reads two constants of its
    // own, so a long chain needs more registers than a program may hold.
    std::vector<const ir::node*> build_long_chain(ir::graph& g, int steps)
    {
        ir::builder b(g);
        auto x = b.input({ir::dtype::float64, ir::shape{5}}, "x");
        for (int k = 0; k < steps; ++k)
        {
            auto c = b.constant(ir::scalar::of_float(ir::dtype::float64, 0.5 + 0.01 * k));
            auto one = b.constant(ir::scalar::of_float(ir::dtype::float64, 1.0));
            x = b.binary(ir::op::ADD, b.binary(ir::op::MUL, x, c), one);
        }
        b.output(x, "r");
        std::vector<const ir::node*> nodes;
        for (ir::node_id id : g.get_region(g.body()).nodes)
        {
            const ir::node& n = g.get_node(id);
            if (ir::has(n.code, ir::prop::ELEMENTWISE))
            {
                nodes.push_back(&n);
            }
        }
        return nodes;
    }
} // namespace

TEST(cpu_fusion, program_too_large_for_the_runner_is_refused)
{
    ir::module m;
    ir::graph& g = m.add_graph("main");
    auto nodes = build_long_chain(g, 40);
    auto prog = cpu::build_program(g, nodes, {nodes.back()->outputs[0]},
                                   cpu::loop_source{cpu::testing::numpy_table().get(), true});
    ASSERT_FALSE(prog) << "a program of " << nodes.size() << " nodes was accepted";
    EXPECT_EQ(prog.error().code(), status_code::unimplemented);
}

namespace
{
    // The chain over 2-D operands, run on `x`, `y` as given (any layout).
    std::vector<buffer> run_chain_2d(bool fuse, int threads, const buffer& x, const buffer& y)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        build_chain_shape(g, x.dtype(), x.shape());
        if (fuse)
        {
            EXPECT_GE(ir::fuse_elementwise(g), 1);
        }
        return run_on_cpu(g, fuse, {x, y}, threads);
    }

    // An interior window [1:-1, 1:-1] of a (rows + 2) x (cols + 2) array: rows
    // unit-strided, not contiguous as a whole (the stencil's slices).
    buffer interior(const buffer& whole)
    {
        const auto item = static_cast<std::int64_t>(whole.itemsize());
        const std::int64_t cols = whole.shape()[1];
        std::byte* first = whole.data() + (cols + 1) * item;
        return buffer::borrow(first, whole.dtype(), {whole.shape()[0] - 2, cols - 2},
                              {cols * item, item});
    }
} // namespace

// Unit-strided rows of a view are read in place, row by row (ew_runner): the
// same bytes as the chain over contiguous copies of the same values, fused or
// not, on one lane or two, rows shorter and longer than a block.
TEST(cpu_fusion, views_with_unit_strided_rows_equal_contiguous_copies_bitwise)
{
    for (ir::dtype t : {ir::dtype::float64, ir::dtype::float32})
    {
        for (std::int64_t cols : {300, 1022, 2500})
        {
            const buffer wx = random_buffer(t, {67, cols + 2}, 11);
            const buffer wy = random_buffer(t, {67, cols + 2}, 12);
            const buffer vx = interior(wx), vy = interior(wy);
            auto cx = buffer::allocate(t, vx.shape()).value();
            auto cy = buffer::allocate(t, vy.shape()).value();
            copy_to_contiguous(vx, cx.data());
            copy_to_contiguous(vy, cy.data());
            const auto plain = run_chain_2d(false, 1, cx, cy);
            for (bool fuse : {false, true})
            {
                for (int threads : {1, 2})
                {
                    EXPECT_TRUE(same_bytes(run_chain_2d(fuse, threads, vx, vy), plain))
                        << ir::dtype_name(t) << " cols=" << cols << " fuse=" << fuse
                        << " threads=" << threads;
                }
            }
        }
    }
}

namespace
{
    // acc = 0; acc = acc + a_k @ b_k for k < steps (a gradient summed over
    // unrolled time steps): fuse_elementwise makes the adds one group whose
    // operands, the products, are made between its members. Returns the
    // outputs; `scheduled`/`nodes` tell whether the adds ran as one node.
    // The products contract 2 dims: column-times-row products would make a
    // chain of rank-1 updates, one kernel of its own (test_cpu_rank1_chain).
    std::vector<buffer> run_accumulation(std::int64_t n, int steps, bool fuse,
                                         std::size_t& scheduled, std::size_t& nodes)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto a = b.input({ir::dtype::float64, ir::shape{n, 2}}, "a");
        auto c = b.input({ir::dtype::float64, ir::shape{2, n}}, "c");
        auto acc = b.zeros(ir::shape{n, n}, ir::dtype::float64);
        for (int k = 0; k < steps; ++k)
        {
            // A new product per step: a_k = a * (k + 1).
            auto ak = b.binary(ir::op::MUL, a,
                               b.constant(ir::scalar::of_float(ir::dtype::float64, double(k + 1))));
            acc = b.binary(ir::op::ADD, acc, b.matmul(ak, c));
        }
        b.output(acc, "acc");
        EXPECT_TRUE(b.ok()) << b.state().message();
        if (fuse)
        {
            EXPECT_GE(ir::fuse_elementwise(g), 1);
        }
        nodes = g.get_region(g.body()).nodes.size();
        return run_on_cpu(g, fuse,
                          {random_buffer(ir::dtype::float64, {n, 2}, 7),
                           random_buffer(ir::dtype::float64, {2, n}, 8)},
                          0, &scheduled);
    }
} // namespace

// A group that would keep more than held_operand_budget of cache-sized
// operands waiting for its last member runs node by node (each add right
// after its product); a small one still runs as one node. Same bytes either way.
TEST(cpu_fusion, group_holding_many_cached_operands_runs_node_by_node)
{
    const int steps = 25;
    std::size_t scheduled = 0, nodes = 0, plain_scheduled = 0, plain_nodes = 0;
    // 25 products of 64x64 float64: 800 KiB held.
    auto big = run_accumulation(64, steps, true, scheduled, nodes);
    auto big_plain = run_accumulation(64, steps, false, plain_scheduled, plain_nodes);
    EXPECT_GT(steps * 64 * 64 * 8, held_operand_budget);
    EXPECT_GT(scheduled + steps / 2, nodes) << "the 25 adds ran as one group";
    EXPECT_TRUE(same_bytes(big, big_plain));
    // 25 products of 8x8: 12.5 KiB, within the budget.
    auto small = run_accumulation(8, steps, true, scheduled, nodes);
    auto small_plain = run_accumulation(8, steps, false, plain_scheduled, plain_nodes);
    EXPECT_LT(scheduled + steps / 2, nodes) << "the 25 adds did not run as one group";
    EXPECT_TRUE(same_bytes(small, small_plain));
}
