// Throughput of the CPU backend against NumPy in the same process: per op and
// per fused group at 100, 64K and 16M float64 elements, and the executor's
// cost per tiny op. Prints medians and ratios; goals, not tests.

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/numpy_loops/numpy_loops.hpp"
#include "backends/cpu/thread_pool.hpp"
#include "backends/reference/reference_backend.hpp"
#include "bench/cpu/bench_inputs.hpp"
#include "bench/cpu/bench_timing.hpp"
#include "ir/builder.hpp"
#include "ir/passes/fuse_elementwise.hpp"

#include <Python.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <sys/resource.h>

using namespace specula;
using namespace specula::backends;
using specula::bench::median_seconds;

namespace specula::bench
{
    void bench_views(const cpu::cpu_options& opts); // bench_views.cpp
    void bench_onednn(const cpu::cpu_options& opts,
                      const std::vector<std::int64_t>& sizes); // bench_onednn.cpp
    void bench_reductions(const cpu::cpu_options& opts,
                          const std::vector<std::int64_t>& sizes); // bench_reductions.cpp
} // namespace specula::bench

namespace
{
    // bench/RESULTS.md, "Measured peaks" (this machine kind, 2 cores).
    constexpr double gemm_f32_peak_gflops = 219.4;

    // NumPy's median for `stmt` on x, y of n float64, via timeit.
    double numpy_seconds(const std::string& stmt, std::int64_t n, int reps)
    {
        std::string code =
            "import numpy as np, timeit\nx=np.random.default_rng(1).standard_normal(" +
            std::to_string(n) + ");y=x*0.5+1\n_t=sorted(timeit.repeat(lambda: " + stmt +
            ", number=1, repeat=" + std::to_string(reps) + "))\n_m=_t[len(_t)//2]\n";
        PyRun_SimpleString(code.c_str());
        PyObject* main = PyImport_AddModule("__main__");  // borrowed
        PyObject* m = PyObject_GetAttrString(main, "_m"); // new
        const double v = PyFloat_AsDouble(m);
        Py_XDECREF(m);
        return v;
    }

    // STREAM triad a = b + 3*c on 16M float64 split over the pool's lanes,
    // measured in this run: the machine is shared, so %triad compares the
    // fused groups with the bandwidth available right now (24 bytes/element).
    double triad_gbs()
    {
        const std::int64_t n = std::int64_t(1) << 24;
        auto a = buffer::allocate(ir::dtype::float64, {n}).value();
        auto b = buffer::allocate(ir::dtype::float64, {n}).value();
        auto c = buffer::allocate(ir::dtype::float64, {n}).value();
        auto* pa = reinterpret_cast<double*>(a.data());
        const auto* pb = reinterpret_cast<const double*>(b.data());
        const auto* pc = reinterpret_cast<const double*>(c.data());
        std::fill(reinterpret_cast<double*>(b.data()), reinterpret_cast<double*>(b.data()) + n,
                  1.0);
        std::fill(reinterpret_cast<double*>(c.data()), reinterpret_cast<double*>(c.data()) + n,
                  2.0);
        std::fill(pa, pa + n, 0.0);
        cpu::thread_pool& pool = cpu::thread_pool::shared();
        const double s = median_seconds(
            [&]
            {
                pool.run_split(n, 1,
                               [&](int, std::int64_t i0, std::int64_t i1)
                               {
                                   for (std::int64_t i = i0; i < i1; ++i)
                                   {
                                       pa[i] = pb[i] + 3.0 * pc[i];
                                   }
                               });
            },
            21);
        return 24.0 * double(n) / s / 1e9;
    }

    using build_fn = std::function<void(ir::builder&, ir::value_id, ir::value_id)>;

    // Page faults of this process so far: first touches of fresh pages.
    long minor_faults()
    {
        rusage u{};
        getrusage(RUSAGE_SELF, &u);
        return u.ru_minflt;
    }

    double specula_seconds(const build_fn& body, std::int64_t n, int reps,
                           const cpu::cpu_options& opts, double* faults_per_run = nullptr)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input({ir::dtype::float64, ir::shape{n}}, "x");
        auto y = b.input({ir::dtype::float64, ir::shape{n}}, "y");
        body(b, x, y);
        ir::fuse_elementwise(g);
        cpu::cpu_backend be(opts);
        target tgt;
        auto exe = be.compile(g, tgt);
        if (!exe)
        {
            std::printf("compile failed: %s\n", exe.error().to_string().c_str());
            return 0;
        }
        std::vector<buffer> in = {specula::bench::numpy_like_input({n}),
                                  specula::bench::numpy_like_input({n})};
        exe.value()->run(in); // first run: the arena's blocks are allocated
        const long faults = minor_faults();
        const double s = median_seconds([&] { exe.value()->run(in); }, reps);
        if (faults_per_run != nullptr)
        {
            *faults_per_run = double(minor_faults() - faults) / (reps + 1);
        }
        return s;
    }
    // float32 relu(A @ W + b), 256x512 @ 512x512, in the fast target (oneDNN
    // with the bias and ReLU as post-ops) and the exact one, against NumPy.
    void gemm_bias_relu(const cpu::cpu_options& opts)
    {
        const std::int64_t m = 256, k = 512, n = 512;
        ir::module mod;
        ir::graph& g = mod.add_graph("main");
        ir::builder b(g);
        auto a = b.input({ir::dtype::float32, ir::shape{m, k}}, "a");
        auto w = b.input({ir::dtype::float32, ir::shape{k, n}}, "w");
        auto bias = b.input({ir::dtype::float32, ir::shape{n}}, "b");
        b.output(b.binary(ir::op::MAXIMUM, b.binary(ir::op::ADD, b.matmul(a, w), bias),
                          b.constant(ir::scalar::of_float(ir::dtype::float32, 0.0))),
                 "y");
        ir::fuse_elementwise(g);
        std::vector<buffer> in = {buffer::allocate(ir::dtype::float32, {m, k}).value(),
                                  buffer::allocate(ir::dtype::float32, {k, n}).value(),
                                  buffer::allocate(ir::dtype::float32, {n}).value()};
        double t[2] = {0, 0};
        for (bool exact : {false, true})
        {
            cpu::cpu_backend be(opts);
            target tgt;
            tgt.exact = exact;
            backends::reference::reference_backend ref; // CONSTANT
            auto exe = be.compile(g, tgt, &ref);
            if (!exe)
            {
                std::printf("compile failed: %s\n", exe.error().to_string().c_str());
                return;
            }
            t[exact ? 1 : 0] = median_seconds([&] { exe.value()->run(in); }, 51);
        }
        PyRun_SimpleString(
            "import numpy as np, timeit\n"
            "A=np.random.default_rng(1).standard_normal((256,512)).astype(np.float32)\n"
            "W=np.random.default_rng(2).standard_normal((512,512)).astype(np.float32)\n"
            "B=np.random.default_rng(3).standard_normal(512).astype(np.float32)\n"
            "_t=sorted(timeit.repeat(lambda: np.maximum(A@W+B,0), number=1, repeat=51))\n"
            "_m=_t[len(_t)//2]\n");
        PyObject* main = PyImport_AddModule("__main__");   // borrowed
        PyObject* mv = PyObject_GetAttrString(main, "_m"); // new
        const double np_s = PyFloat_AsDouble(mv);
        Py_XDECREF(mv);
        const double flops = 2.0 * m * k * n;
        std::printf("f32 relu(A@W+b) 256x512x512: fast %.1f us (%.0f GFLOP/s, %.0f%% of peak, "
                    "%.2fx numpy), exact %.1f us (%.2fx numpy), numpy %.1f us\n",
                    t[0] * 1e6, flops / t[0] / 1e9, 100 * flops / t[0] / 1e9 / gemm_f32_peak_gflops,
                    np_s / t[0], t[1] * 1e6, np_s / t[1], np_s * 1e6);
    }
} // namespace

int main(int argc, char** argv)
{
    // `bench_cpu executor` runs only the executor section (profiling).
    const bool only_executor = argc > 1 && std::string(argv[1]) == "executor";
    // `bench_cpu gemm`: only the float32 GEMM + bias + ReLU comparison.
    const bool only_gemm = argc > 1 && std::string(argv[1]) == "gemm";
    // `bench_cpu views`: only the views section.
    const bool only_views = argc > 1 && std::string(argv[1]) == "views";
    // `bench_cpu fused`: only the 16M-element cases (bandwidth profiling).
    const bool only_large = argc > 1 && std::string(argv[1]) == "fused";
    // `bench_cpu fused specula [name]`: and without the NumPy runs, only the
    // cases whose name contains `name` (for perf).
    const bool skip_numpy = only_large && argc > 2 && std::string(argv[2]) == "specula";
    const std::string only_case = skip_numpy && argc > 3 ? argv[3] : "";
    Py_InitializeEx(0);
    auto loops = std::make_shared<cpu::loop_table>();
    if (!cpu::fill_numpy_loops(*loops))
    {
        return 1;
    }
    cpu::cpu_options opts;
    opts.numpy_loops = loops;
    opts.fuse = true;
    struct bench_case
    {
        const char* name;
        const char* numpy;
        build_fn body;
        int bytes_per_elem; // memory traffic of the fused form
    };
    const std::vector<bench_case> cases = {
        {"add", "x+y",
         [](ir::builder& b, auto x, auto y) { b.output(b.binary(ir::op::ADD, x, y), "r"); }, 24},
        {"exp", "np.exp(x)",
         [](ir::builder& b, auto x, auto) { b.output(b.unary(ir::op::EXP, x), "r"); }, 16},
        {"fused x*y+x*0.5 (3 ops)", "x*y+x*y*x",
         [](ir::builder& b, auto x, auto y)
         {
             b.output(b.binary(ir::op::ADD, b.binary(ir::op::MUL, x, y),
                               b.binary(ir::op::MUL, b.binary(ir::op::MUL, x, y), x)),
                      "r");
         },
         24},
        {"fused tanh(x*y+exp(-x))-x", "np.tanh(x*y+np.exp(-x))-x",
         [](ir::builder& b, auto x, auto y)
         {
             auto s = b.binary(ir::op::ADD, b.binary(ir::op::MUL, x, y),
                               b.unary(ir::op::EXP, b.unary(ir::op::NEG, x)));
             b.output(b.binary(ir::op::SUB, b.unary(ir::op::TANH, s), x), "r");
         },
         24},
        {"sum", "x.sum()",
         [](ir::builder& b, auto x, auto)
         { b.output(b.reduce_all(ir::op::SUM, x, false, 0), "r"); },
         8},
    };
    if (argc > 1 && std::string(argv[1]) == "onednn")
    {
        // `bench_cpu onednn [n...]`: the oneDNN float32 ops, default 100, 64K, 16M.
        std::vector<std::int64_t> sizes;
        for (int i = 2; i < argc; ++i)
        {
            sizes.push_back(std::atoll(argv[i]));
        }
        if (sizes.empty())
        {
            sizes = {100, 65536, std::int64_t(1) << 24};
        }
        specula::bench::bench_onednn(opts, sizes);
        return 0;
    }
    if (argc > 1 && std::string(argv[1]) == "reductions")
    {
        // `bench_cpu reductions [n...]`: default 100, 64K, 1M, 16M.
        std::vector<std::int64_t> sizes;
        for (int i = 2; i < argc; ++i)
        {
            sizes.push_back(std::atoll(argv[i]));
        }
        if (sizes.empty())
        {
            sizes = {100, 65536, std::int64_t(1) << 20, std::int64_t(1) << 24};
        }
        specula::bench::bench_reductions(opts, sizes);
        return 0;
    }
    if (only_views)
    {
        specula::bench::bench_views(opts);
        return 0;
    }
    const double triad_peak_gbs = triad_gbs();
    std::printf("triad (%d lanes, 16M float64, this run): %.1f GB/s\n",
                cpu::thread_pool::shared().lanes(), triad_peak_gbs);
    std::printf("%-28s %10s %12s %12s %8s %9s %7s %9s\n", "case", "n", "specula_us", "numpy_us",
                "ratio", "GB/s", "%triad", "faults/run");
    for (const auto& c : only_executor || only_gemm ? std::vector<bench_case>{} : cases)
    {
        if (std::string(c.name).find(only_case) == std::string::npos)
        {
            continue;
        }
        for (std::int64_t n : {std::int64_t(100), std::int64_t(65536), std::int64_t(1) << 24})
        {
            if (only_large && n < (std::int64_t(1) << 24))
            {
                continue;
            }
            const int reps = n > 1000000 ? 11 : 201;
            double faults = 0;
            const double s = specula_seconds(c.body, n, reps, opts, &faults);
            const double np_s = skip_numpy ? 0.0 : numpy_seconds(c.numpy, n, reps);
            const double gbs = c.bytes_per_elem * double(n) / s / 1e9;
            std::printf("%-28s %10lld %12.2f %12.2f %7.2fx %9.2f %6.0f%% %9.0f\n", c.name,
                        static_cast<long long>(n), s * 1e6, np_s * 1e6, np_s / s, gbs,
                        100 * gbs / triad_peak_gbs, faults);
        }
    }
    if (!only_executor && !only_large)
    {
        gemm_bias_relu(opts);
    }
    if (only_gemm || only_large)
    {
        return 0;
    }
    // Executor overhead: a chain of 200 adds on 1 element.
    const int ops = 200;
    const double chain = specula_seconds(
        [&](ir::builder& b, ir::value_id x, ir::value_id y)
        {
            ir::value_id v = x;
            for (int i = 0; i < ops; ++i)
            {
                v = b.binary(ir::op::ADD, v, y);
            }
            b.output(v, "r");
        },
        1, only_executor ? 200001 : 2001,
        [&]
        {
            cpu::cpu_options o = opts;
            o.fuse = false;
            return o;
        }());
    const double np_op = numpy_seconds("x+y", 1, 2001);
    std::printf(
        "executor: %.1f ns per tiny op (unfused chain of %d); numpy x+y on 1 element: %.1f ns\n",
        chain / ops * 1e9, ops, np_op * 1e9);
    return 0;
}
