// `bench_cpu reductions [n...]`: the exact path's reductions (float64) and the
// exact-mode softmax against NumPy in the same process, per element count
// (default 100, 64K, 1M, 16M). 2-D cases are (n/256, 256); the softmax is over
// rows of 1000 (n rounded to whole rows). Medians; goals, not tests.

#include "backends/cpu/cpu_backend.hpp"
#include "backends/reference/reference_backend.hpp"
#include "bench/cpu/bench_inputs.hpp"
#include "bench/cpu/bench_timing.hpp"
#include "ir/builder.hpp"
#include "ir/passes/fuse_elementwise.hpp"

#include <Python.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace specula::bench
{
    using namespace specula::backends;

    namespace
    {
        using body_fn = std::function<void(ir::builder&, ir::value_id x)>;

        struct reduce_case
        {
            const char* name;
            const char* numpy; // over x of shape (rows, cols)
            std::int64_t cols; // 0: 1-D x of n elements
            body_fn body;
        };

        double numpy_of(const std::string& stmt, std::int64_t rows, std::int64_t cols, int reps)
        {
            const std::string shape =
                cols == 0 ? std::to_string(rows)
                          : "(" + std::to_string(rows) + "," + std::to_string(cols) + ")";
            const std::string code = "import numpy as np, timeit\n"
                                     "x=np.random.default_rng(1).standard_normal(" +
                                     shape + ")\n_t=sorted(timeit.repeat(lambda: " + stmt +
                                     ", number=1, repeat=" + std::to_string(reps) +
                                     "))\n_m=_t[len(_t)//2]\n";
            PyRun_SimpleString(code.c_str());
            PyObject* main = PyImport_AddModule("__main__");  // borrowed
            PyObject* m = PyObject_GetAttrString(main, "_m"); // new
            const double v = PyFloat_AsDouble(m);
            Py_XDECREF(m);
            return v;
        }

        double specula_of(const reduce_case& c, std::int64_t rows, const cpu::cpu_options& opts,
                          int reps)
        {
            ir::module m;
            ir::graph& g = m.add_graph("main");
            ir::builder b(g);
            const std::vector<std::int64_t> dims = c.cols == 0
                                                       ? std::vector<std::int64_t>{rows}
                                                       : std::vector<std::int64_t>{rows, c.cols};
            auto x = b.input({ir::dtype::float64, ir::shape::of(dims)}, "x");
            c.body(b, x);
            ir::fuse_elementwise(g);
            cpu::cpu_backend be(opts);
            reference::reference_backend ref;
            target tgt;
            tgt.exact = true;
            auto exe = be.compile(g, tgt, &ref);
            if (!exe)
            {
                std::printf("compile failed: %s\n", exe.error().to_string().c_str());
                return 0;
            }
            const buffer in = numpy_like_input(dims);
            auto* p = reinterpret_cast<double*>(in.data());
            for (std::int64_t k = 0; k < in.size(); ++k)
            {
                p[k] = static_cast<double>((k * 7919) % 10007) / 10007.0 - 0.5;
            }
            return median_seconds([&] { exe.value()->run({in}); }, reps);
        }

        std::vector<reduce_case> cases()
        {
            using ir::op;
            auto all = [](op code) {
                return [code](ir::builder& b, ir::value_id x)
                { b.output(b.reduce_all(code, x), "r"); };
            };
            auto axis = [](op code, int a) {
                return [code, a](ir::builder& b, ir::value_id x)
                { b.output(b.reduce(code, x, {a}), "r"); };
            };
            return {
                {"max()", "x.max()", 0, all(op::MAX)},
                {"min()", "x.min()", 0, all(op::MIN)},
                {"argmax()", "x.argmax()", 0, all(op::ARGMAX)},
                {"argmin()", "x.argmin()", 0, all(op::ARGMIN)},
                {"var()", "x.var()", 0, all(op::VAR)},
                {"max(axis=0)", "x.max(axis=0)", 256, axis(op::MAX, 0)},
                {"max(axis=1)", "x.max(axis=1)", 256, axis(op::MAX, 1)},
                {"argmax(axis=0)", "x.argmax(axis=0)", 256, axis(op::ARGMAX, 0)},
                {"argmax(axis=1)", "x.argmax(axis=1)", 256, axis(op::ARGMAX, 1)},
                {"argmin(axis=0)", "x.argmin(axis=0)", 256, axis(op::ARGMIN, 0)},
                {"argmin(axis=1)", "x.argmin(axis=1)", 256, axis(op::ARGMIN, 1)},
                {"var(axis=0)", "x.var(axis=0)", 256, axis(op::VAR, 0)},
                {"std(axis=1)", "x.std(axis=1)", 256, axis(op::STD, 1)},
                {"softmax rows of 1000",
                 "(lambda e: e / e.sum(axis=1, keepdims=True))(np.exp(x - x.max(axis=1, "
                 "keepdims=True)))",
                 1000,
                 [](ir::builder& b, ir::value_id x)
                 {
                     auto mx = b.reduce(op::MAX, x, {1}, true);
                     auto e = b.unary(op::EXP, b.binary(op::SUB, x, mx));
                     b.output(b.binary(op::DIV, e, b.reduce(op::SUM, e, {1}, true)), "r");
                 }},
            };
        }
    } // namespace

    void bench_reductions(const cpu::cpu_options& opts, const std::vector<std::int64_t>& sizes)
    {
        std::printf("%-22s %10s %12s %12s %8s\n", "reduction (float64)", "n", "specula_us",
                    "numpy_us", "ratio");
        for (const reduce_case& c : cases())
        {
            for (std::int64_t n : sizes)
            {
                const std::int64_t cols = c.cols;
                const std::int64_t rows = cols == 0 ? n : std::max<std::int64_t>(1, n / cols);
                const int reps = n > 4000000 ? 11 : n > 100000 ? 51 : 201;
                const double s = specula_of(c, rows, opts, reps);
                const double np_s = numpy_of(c.numpy, rows, cols, reps);
                std::printf("%-22s %10lld %12.2f %12.2f %7.2fx\n", c.name,
                            static_cast<long long>(cols == 0 ? rows : rows * cols), s * 1e6,
                            np_s * 1e6, np_s / s);
            }
        }
    }
} // namespace specula::bench
