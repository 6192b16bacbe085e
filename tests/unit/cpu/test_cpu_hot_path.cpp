// No allocation on the hot path: after a graph's first run, later runs of the
// CPU backend allocate no buffer and make no heap allocation of their own.
// This binary replaces the global operator new to count every C++ heap
// allocation (std::vector growth, std::function, shared layouts); buffers are
// counted by buffer::allocation_count(). The one allocation a run may make is
// the result's vector of outputs, which the caller receives and owns.

#include "backends/cpu/cpu_backend.hpp"
#include "cpu_test_support.hpp"
#include "ir/builder.hpp"
#include "ir/passes/fuse_elementwise.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>

namespace
{
    std::atomic<long> g_heap_allocations{0};
} // namespace

void* operator new(std::size_t n)
{
    g_heap_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n == 0 ? 1 : n))
    {
        return p;
    }
    throw std::bad_alloc();
}

void* operator new[](std::size_t n)
{
    return operator new(n);
}

void operator delete(void* p) noexcept
{
    std::free(p);
}

void operator delete[](void* p) noexcept
{
    std::free(p);
}

void operator delete(void* p, std::size_t) noexcept
{
    std::free(p);
}

void operator delete[](void* p, std::size_t) noexcept
{
    std::free(p);
}

namespace
{
    using namespace specula;
    using namespace specula::backends;

    buffer random_f64(std::vector<std::int64_t> shape, unsigned seed)
    {
        auto b = buffer::allocate(ir::dtype::float64, std::move(shape));
        std::mt19937_64 rng(seed);
        std::normal_distribution<double> dist(0.0, 1.0);
        for (std::int64_t i = 0; i < b->size(); ++i)
        {
            reinterpret_cast<double*>(b->data())[i] = dist(rng);
        }
        return b.value();
    }

    // One graph touching the kernels known to allocate per run before:
    // a fused group split over two lanes, a reshape of a transposed (strided)
    // value, mask_select, plus BLAS, gather, a view and reductions.
    constexpr std::int64_t rows = 256, cols = 300;

    void build_mixed(ir::graph& g)
    {
        ir::builder b(g);
        auto x = b.input({ir::dtype::float64, ir::shape{rows, cols}}, "x");
        auto y = b.input({ir::dtype::float64, ir::shape{rows, cols}}, "y");
        auto w = b.input({ir::dtype::float64, ir::shape{cols, 64}}, "w");
        auto idx = b.input({ir::dtype::int64, ir::shape{10}}, "idx");
        auto f =
            b.binary(ir::op::SUB,
                     b.unary(ir::op::TANH, b.binary(ir::op::ADD, b.binary(ir::op::MUL, x, y),
                                                    b.unary(ir::op::EXP, b.unary(ir::op::NEG, x)))),
                     x);
        auto flat = b.reshape(b.transpose(x, {1, 0}), ir::shape{rows * cols});
        auto zero = b.constant(ir::scalar::of_float(ir::dtype::float64, 0.0));
        auto positive = b.mask_select(y, b.binary(ir::op::GT, y, zero));
        b.output(b.matmul(f, w), "p");
        b.output(b.reduce_all(ir::op::SUM, flat, false, 0), "s_flat");
        b.output(b.reduce_all(ir::op::SUM, positive, false, 0), "s_pos");
        b.output(b.gather(y, idx, 0), "g");
        b.output(b.reduce(ir::op::SUM, y, {1}, false, 0), "rows");
        ASSERT_TRUE(b.ok()) << b.state().message();
        ir::fuse_elementwise(g);
    }

    std::unique_ptr<executable> compile_mixed(ir::module& m, int threads)
    {
        ir::graph& g = m.add_graph("main");
        build_mixed(g);
        cpu::cpu_options opts;
        opts.numpy_loops = cpu::testing::numpy_table();
        opts.threads = threads;
        cpu::cpu_backend be(opts);
        auto exe = be.compile(g, target{});
        EXPECT_TRUE(exe) << (exe ? "" : exe.error().to_string());
        return exe ? std::move(exe.value()) : nullptr;
    }

    std::vector<buffer> mixed_inputs()
    {
        auto idx = buffer::allocate(ir::dtype::int64, {10});
        for (std::int64_t i = 0; i < 10; ++i)
        {
            reinterpret_cast<std::int64_t*>(idx->data())[i] = (i * 37) % rows - (i % 2) * rows;
        }
        return {random_f64({rows, cols}, 1), random_f64({rows, cols}, 2), random_f64({cols, 64}, 3),
                idx.value()};
    }

    struct run_cost
    {
        long heap = 0;
        std::int64_t buffers = 0;
    };

    // What one run allocates, its outputs dropped at once.
    run_cost cost_of_run(const executable& exe, const std::vector<buffer>& inputs)
    {
        const long heap = g_heap_allocations.load();
        const std::int64_t buffers = buffer::allocation_count();
        {
            run_result r = exe.run(inputs);
            EXPECT_TRUE(r.state) << r.state.to_string();
        }
        return {g_heap_allocations.load() - heap, buffer::allocation_count() - buffers};
    }
} // namespace

TEST(cpu_hot_path, counting_sees_the_first_run_allocate)
{
    // The counters can fail: the first run builds the arena and its blocks.
    ir::module m;
    auto exe = compile_mixed(m, 2);
    ASSERT_NE(exe, nullptr);
    auto inputs = mixed_inputs();
    const run_cost first = cost_of_run(*exe, inputs);
    EXPECT_GT(first.buffers, 0);
    EXPECT_GT(first.heap, 1);
}

TEST(cpu_hot_path, later_runs_allocate_only_the_result_vector)
{
    for (int threads : {1, 2})
    {
        ir::module m;
        auto exe = compile_mixed(m, threads);
        ASSERT_NE(exe, nullptr);
        auto inputs = mixed_inputs();
        cost_of_run(*exe, inputs);
        for (int run = 2; run <= 8; ++run)
        {
            const run_cost c = cost_of_run(*exe, inputs);
            EXPECT_EQ(c.buffers, 0) << "threads " << threads << ", run " << run;
            EXPECT_EQ(c.heap, 1) << "threads " << threads << ", run " << run;
        }
    }
}

TEST(cpu_hot_path, a_held_mask_select_output_keeps_its_bytes)
{
    // mask_select reuses its memory only when nobody holds the last output.
    ir::module m;
    ir::graph& g = m.add_graph("main");
    ir::builder b(g);
    auto x = b.input({ir::dtype::float64, ir::shape{1000}}, "x");
    auto zero = b.constant(ir::scalar::of_float(ir::dtype::float64, 0.0));
    b.output(b.mask_select(x, b.binary(ir::op::GT, x, zero)), "pos");
    ASSERT_TRUE(b.ok());
    cpu::cpu_options opts;
    opts.numpy_loops = cpu::testing::numpy_table();
    cpu::cpu_backend be(opts);
    auto exe = be.compile(g, target{});
    ASSERT_TRUE(exe);
    const buffer x1 = random_f64({1000}, 7), x2 = random_f64({1000}, 8);
    auto expected = [](const buffer& in)
    {
        std::vector<double> v;
        const auto* p = reinterpret_cast<const double*>(in.data());
        for (std::int64_t i = 0; i < in.size(); ++i)
        {
            if (p[i] > 0)
            {
                v.push_back(p[i]);
            }
        }
        return v;
    };
    auto same = [](const buffer& out, const std::vector<double>& want)
    {
        return out.size() == static_cast<std::int64_t>(want.size()) &&
               std::memcmp(out.data(), want.data(), want.size() * sizeof(double)) == 0;
    };
    run_result held = exe.value()->run({x1});
    ASSERT_TRUE(held.state);
    for (int run = 0; run < 3; ++run)
    {
        run_result next = exe.value()->run({run % 2 == 0 ? x2 : x1});
        ASSERT_TRUE(next.state);
        EXPECT_TRUE(same(next.outputs[0], expected(run % 2 == 0 ? x2 : x1)));
        EXPECT_NE(next.outputs[0].data(), held.outputs[0].data());
    }
    EXPECT_TRUE(same(held.outputs[0], expected(x1)));
}
