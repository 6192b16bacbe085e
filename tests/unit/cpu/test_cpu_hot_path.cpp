// No allocation on the hot path: after a graph's first run, later runs of the
// CPU backend allocate no buffer and make no heap allocation of their own.
// This binary replaces the global operator new to count every C++ heap
// allocation (std::vector growth, std::function, shared layouts), and
// posix_memalign, through which oneDNN allocates its memory (scratchpads);
// buffers are counted by buffer::allocation_count(). The one allocation a run
// may make is the result's vector of outputs, which the caller receives and
// owns.
//
// oneDNN (fast-mode float32 graph below): its kernels bind a scratchpad made
// at compile time, one per lane (scratchpad_mode::user), and no other memory
// of oneDNN's allocator is made per run. oneDNN 2.6's
// dnnl_primitive_execute() itself still builds a std::unordered_map of its
// arguments and a few small context objects per call (tens of bytes each),
// which no public API avoids: those are counted apart (the caller of operator
// new is inside libdnnl) and checked to be small and the same number every
// run.

#include "backends/cpu/cpu_backend.hpp"
#include "cpu_test_support.hpp"
#include "ir/builder.hpp"
#include "ir/passes/fuse_elementwise.hpp"
#ifdef SPECULA_HAVE_ONEDNN
#include "backends/cpu/onednn/onednn_plan.hpp"

#include <dnnl.hpp>
#endif

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <new>
#include <random>

extern "C" void* __libc_memalign(std::size_t alignment, std::size_t n);

namespace
{
    std::atomic<long> g_heap_allocations{0};
    std::atomic<long> g_aligned_allocations{0};
    // operator new called from inside libdnnl, and the largest such request.
    std::atomic<long> g_onednn_allocations{0};
    std::atomic<std::size_t> g_onednn_largest{0};

    bool called_from_onednn(const void* caller)
    {
        Dl_info info;
        return dladdr(caller, &info) != 0 && info.dli_fname != nullptr &&
               std::strstr(info.dli_fname, "libdnnl") != nullptr;
    }

    void* counted_new(std::size_t n, const void* caller)
    {
        if (called_from_onednn(caller))
        {
            g_onednn_allocations.fetch_add(1, std::memory_order_relaxed);
            std::size_t seen = g_onednn_largest.load();
            while (n > seen && !g_onednn_largest.compare_exchange_weak(seen, n))
            {
            }
        }
        else
        {
            g_heap_allocations.fetch_add(1, std::memory_order_relaxed);
        }
        if (void* p = std::malloc(n == 0 ? 1 : n))
        {
            return p;
        }
        throw std::bad_alloc();
    }
} // namespace

void* operator new(std::size_t n)
{
    return counted_new(n, __builtin_return_address(0));
}

void* operator new[](std::size_t n)
{
    return counted_new(n, __builtin_return_address(0));
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

// oneDNN's own allocator (dnnl::impl::malloc: scratchpads, memories it owns).
extern "C" int posix_memalign(void** out, std::size_t alignment, std::size_t n)
{
    g_aligned_allocations.fetch_add(1, std::memory_order_relaxed);
    void* p = __libc_memalign(alignment, n == 0 ? 1 : n);
    if (p == nullptr)
    {
        return ENOMEM;
    }
    *out = p;
    return 0;
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
        long aligned = 0;
        long onednn = 0; // operator new from inside libdnnl
        std::int64_t buffers = 0;
    };

    // What one run allocates, its outputs dropped at once.
    run_cost cost_of_run(const executable& exe, const std::vector<buffer>& inputs)
    {
        const run_cost before{g_heap_allocations.load(), g_aligned_allocations.load(),
                              g_onednn_allocations.load(), buffer::allocation_count()};
        {
            run_result r = exe.run(inputs);
            EXPECT_TRUE(r.state) << r.state.to_string();
        }
        return {g_heap_allocations.load() - before.heap,
                g_aligned_allocations.load() - before.aligned,
                g_onednn_allocations.load() - before.onednn,
                buffer::allocation_count() - before.buffers};
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

#ifdef SPECULA_HAVE_ONEDNN
namespace
{
    buffer random_f32(std::vector<std::int64_t> shape, unsigned seed)
    {
        auto b = buffer::allocate(ir::dtype::float32, std::move(shape));
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> dist(-1.f, 1.f);
        for (std::int64_t i = 0; i < b->size(); ++i)
        {
            reinterpret_cast<float*>(b->data())[i] = dist(rng);
        }
        return b.value();
    }

    // A fast-mode float32 graph whose every heavy node is a oneDNN kernel:
    // relu(x @ w + b) (matmul with a bias, rows split over the lanes), its
    // softmax over rows, a sqrt/scale chain and a sum over rows.
    constexpr std::int64_t f_rows = 256, f_k = 512, f_cols = 512;

    std::unique_ptr<executable> compile_fast(ir::module& m, int threads)
    {
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input({ir::dtype::float32, ir::shape{f_rows, f_k}}, "x");
        auto w = b.input({ir::dtype::float32, ir::shape{f_k, f_cols}}, "w");
        auto bias = b.input({ir::dtype::float32, ir::shape{f_cols}}, "b");
        auto f32 = [&](double v)
        { return b.constant(ir::scalar::of_float(ir::dtype::float32, v)); };
        auto h = b.binary(ir::op::MAXIMUM, b.binary(ir::op::ADD, b.matmul(x, w), bias), f32(0.0));
        auto mx = b.reduce(ir::op::MAX, h, {1}, true, 0);
        auto e = b.unary(ir::op::EXP, b.binary(ir::op::SUB, h, mx));
        auto sm = b.binary(ir::op::DIV, e, b.reduce(ir::op::SUM, e, {1}, true, 0));
        auto chain = b.binary(ir::op::MUL, b.unary(ir::op::SQRT, sm), f32(0.5));
        b.output(chain, "chain");
        b.output(b.reduce(ir::op::SUM, h, {1}, false, 0), "row_sums");
        EXPECT_TRUE(b.ok()) << b.state().message();
        ir::fuse_elementwise(g);
        cpu::cpu_options opts;
        opts.numpy_loops = cpu::testing::numpy_table();
        opts.threads = threads;
        cpu::cpu_backend be(opts);
        target t;
        t.exact = false;
        auto exe = be.compile(g, t);
        EXPECT_TRUE(exe) << (exe ? "" : exe.error().to_string());
        return exe ? std::move(exe.value()) : nullptr;
    }
} // namespace

TEST(cpu_hot_path, onednn_runs_allocate_only_the_result_vector)
{
    for (int threads : {1, 2})
    {
        ir::module m;
        const std::int64_t kernels = cpu::onednn::plan_kernels_made();
        auto exe = compile_fast(m, threads);
        ASSERT_NE(exe, nullptr);
        // matmul+bias+relu, softmax, the sqrt chain and the row sum.
        EXPECT_EQ(cpu::onednn::plan_kernels_made() - kernels, 4) << "threads " << threads;
        const std::vector<buffer> inputs = {random_f32({f_rows, f_k}, 1),
                                            random_f32({f_k, f_cols}, 2), random_f32({f_cols}, 3)};
        const run_cost first = cost_of_run(*exe, inputs);
        // The counters can fail: the first run allocates the arena's blocks.
        EXPECT_GT(first.buffers, 0);
        g_onednn_largest = 0;
        const run_cost second = cost_of_run(*exe, inputs);
        for (int run = 3; run <= 8; ++run)
        {
            const run_cost c = cost_of_run(*exe, inputs);
            EXPECT_EQ(c.buffers, 0) << "threads " << threads << ", run " << run;
            EXPECT_EQ(c.heap, 1) << "threads " << threads << ", run " << run;
            // No scratchpad nor any other memory of oneDNN's allocator.
            EXPECT_EQ(c.aligned, 0) << "threads " << threads << ", run " << run;
            EXPECT_EQ(c.onednn, second.onednn) << "threads " << threads << ", run " << run;
        }
        // dnnl_primitive_execute's argument map and context: small objects.
        EXPECT_LE(g_onednn_largest.load(), 512u) << "threads " << threads;
    }
}

TEST(cpu_hot_path, onednn_memory_is_counted)
{
    // The posix_memalign counter sees oneDNN's allocator: a memory oneDNN
    // allocates itself (as a scratchpad of the library's mode is) counts.
    const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    const long before = g_aligned_allocations.load();
    {
        const dnnl::memory m(dnnl::memory::desc({f_rows, f_cols}, dnnl::memory::data_type::f32,
                                                dnnl::memory::format_tag::ab),
                             eng);
        EXPECT_NE(m.get_data_handle(), nullptr);
    }
    EXPECT_GT(g_aligned_allocations.load() - before, 0);
}
#endif

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
