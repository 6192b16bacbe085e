// `bench_cpu onednn [sizes...]`: the oneDNN float32 ops (fast target, oneDNN
// forced at every size) against the same graphs on the exact path and against
// NumPy float32, per element count. The crossover sizes in
// backends/cpu/onednn/onednn_selection.cpp come from this table.

#include "backends/cpu/cpu_backend.hpp"
#include "backends/reference/reference_backend.hpp"
#include "bench/cpu/bench_timing.hpp"
#include "ir/builder.hpp"
#include "ir/passes/fuse_elementwise.hpp"

#include <Python.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace specula::bench
{
    using namespace specula::backends;

    namespace
    {
        using body_fn = std::function<void(ir::builder&, ir::value_id x, ir::value_id y,
                                           ir::value_id z, ir::value_id row)>;

        struct op_case
        {
            const char* name;
            const char* numpy; // x, y, z of shape (rows, cols), row of shape (cols,)
            body_fn body;
        };

        double numpy_of(const std::string& stmt, std::int64_t rows, std::int64_t cols, int reps)
        {
            const std::string shape = "(" + std::to_string(rows) + "," + std::to_string(cols) + ")";
            std::string code = "import numpy as np, timeit\nr=np.random.default_rng(1)\n"
                               "x=r.standard_normal(" +
                               shape +
                               ").astype(np.float32)\n"
                               "y=r.standard_normal(" +
                               shape +
                               ").astype(np.float32)\n"
                               "z=r.standard_normal(" +
                               shape +
                               ").astype(np.float32)\n"
                               "row=r.standard_normal(" +
                               std::to_string(cols) +
                               ").astype(np.float32)\n"
                               "_t=sorted(timeit.repeat(lambda: " +
                               stmt + ", number=1, repeat=" + std::to_string(reps) +
                               "))\n_m=_t[len(_t)//2]\n";
            PyRun_SimpleString(code.c_str());
            PyObject* main = PyImport_AddModule("__main__");  // borrowed
            PyObject* m = PyObject_GetAttrString(main, "_m"); // new
            const double v = PyFloat_AsDouble(m);
            Py_XDECREF(m);
            return v;
        }

        double specula_of(const op_case& c, std::int64_t rows, std::int64_t cols, bool exact,
                          const cpu::cpu_options& base, int reps)
        {
            ir::module m;
            ir::graph& g = m.add_graph("main");
            ir::builder b(g);
            const ir::value_type t{ir::dtype::float32, ir::shape{rows, cols}};
            auto x = b.input(t, "x");
            auto y = b.input(t, "y");
            auto z = b.input(t, "z");
            auto row = b.input({ir::dtype::float32, ir::shape{cols}}, "row");
            c.body(b, x, y, z, row);
            ir::fuse_elementwise(g);
            cpu::cpu_options opts = base;
            opts.onednn_min_elements = 0; // oneDNN at every size: the crossover is measured
            cpu::cpu_backend be(opts);
            reference::reference_backend ref;
            target tgt;
            tgt.exact = exact;
            auto exe = be.compile(g, tgt, &ref);
            if (!exe)
            {
                std::printf("compile failed: %s\n", exe.error().to_string().c_str());
                return 0;
            }
            std::vector<buffer> in;
            for (int i = 0; i < 3; ++i)
            {
                auto buf = buffer::allocate(ir::dtype::float32, {rows, cols}).value();
                auto* p = reinterpret_cast<float*>(buf.data());
                for (std::int64_t k = 0; k < rows * cols; ++k)
                {
                    p[k] = 0.25f + 0.5f * static_cast<float>((k * 7 + i) % 13) / 13.f;
                }
                in.push_back(buf);
            }
            in.push_back(buffer::allocate(ir::dtype::float32, {cols}).value());
            return median_seconds([&] { exe.value()->run(in); }, reps);
        }

        ir::value_id f32c(ir::builder& b, double v)
        {
            return b.constant(ir::scalar::of_float(ir::dtype::float32, v));
        }

        std::vector<op_case> cases()
        {
            using ir::op;
            return {
                {"tanh", "np.tanh(x)",
                 [](ir::builder& b, auto x, auto, auto, auto)
                 { b.output(b.unary(op::TANH, x), "r"); }},
                {"sqrt", "np.sqrt(x)",
                 [](ir::builder& b, auto x, auto, auto, auto)
                 { b.output(b.unary(op::SQRT, x), "r"); }},
                {"add", "x+y",
                 [](ir::builder& b, auto x, auto y, auto, auto)
                 { b.output(b.binary(op::ADD, x, y), "r"); }},
                {"(x*y+z)*0.5-x", "(x*y+z)*0.5-x",
                 [](ir::builder& b, auto x, auto y, auto z, auto)
                 {
                     auto t = b.binary(op::MUL, b.binary(op::ADD, b.binary(op::MUL, x, y), z),
                                       f32c(b, 0.5));
                     b.output(b.binary(op::SUB, t, x), "r");
                 }},
                {"logistic", "1/(1+np.exp(-x))",
                 [](ir::builder& b, auto x, auto, auto, auto)
                 {
                     auto e = b.unary(op::EXP, b.unary(op::NEG, x));
                     b.output(b.binary(op::DIV, f32c(b, 1), b.binary(op::ADD, f32c(b, 1), e)), "r");
                 }},
                {"tanh(x+row)*y", "np.tanh(x+row)*y",
                 [](ir::builder& b, auto x, auto y, auto, auto row) {
                     b.output(b.binary(op::MUL, b.unary(op::TANH, b.binary(op::ADD, x, row)), y),
                              "r");
                 }},
                {"softmax",
                 "(lambda e: e/e.sum(axis=1,keepdims=True))(np.exp(x-x.max(axis=1,keepdims=True)))",
                 [](ir::builder& b, auto x, auto, auto, auto)
                 {
                     auto e =
                         b.unary(op::EXP, b.binary(op::SUB, x, b.reduce(op::MAX, x, {1}, true)));
                     b.output(b.binary(op::DIV, e, b.reduce(op::SUM, e, {1}, true)), "r");
                 }},
                {"layernorm",
                 "(x-x.mean(axis=1,keepdims=True))/"
                 "np.sqrt(x.var(axis=1,keepdims=True)+1e-5)*row+row",
                 [](ir::builder& b, auto x, auto, auto, auto row)
                 {
                     auto mu = b.reduce(op::MEAN, x, {1}, true);
                     auto var = b.reduce(op::VAR, x, {1}, true);
                     auto y = b.binary(op::DIV, b.binary(op::SUB, x, mu),
                                       b.unary(op::SQRT, b.binary(op::ADD, var, f32c(b, 1e-5))));
                     b.output(b.binary(op::ADD, b.binary(op::MUL, y, row), row), "r");
                 }},
                {"batchnorm",
                 "(x-x.mean(axis=0,keepdims=True))/np.sqrt(x.var(axis=0,keepdims=True)+1e-5)",
                 [](ir::builder& b, auto x, auto, auto, auto)
                 {
                     auto mu = b.reduce(op::MEAN, x, {0}, true);
                     auto var = b.reduce(op::VAR, x, {0}, true);
                     b.output(b.binary(op::DIV, b.binary(op::SUB, x, mu),
                                       b.unary(op::SQRT, b.binary(op::ADD, var, f32c(b, 1e-5)))),
                              "r");
                 }},
                {"sum(axis=1)", "x.sum(axis=1)",
                 [](ir::builder& b, auto x, auto, auto, auto)
                 { b.output(b.reduce(op::SUM, x, {1}), "r"); }},
                {"sum()", "x.sum()",
                 [](ir::builder& b, auto x, auto, auto, auto)
                 { b.output(b.reduce_all(op::SUM, x), "r"); }},
                {"mean(axis=0)", "x.mean(axis=0)",
                 [](ir::builder& b, auto x, auto, auto, auto)
                 { b.output(b.reduce(op::MEAN, x, {0}), "r"); }},
            };
        }
    } // namespace

    void bench_onednn(const cpu::cpu_options& opts, const std::vector<std::int64_t>& sizes)
    {
        std::printf("%-16s %10s %7s %12s %12s %12s %8s\n", "op (float32)", "n", "cols", "onednn_us",
                    "exact_us", "numpy_us", "np/dnn");
        for (const op_case& c : cases())
        {
            for (std::int64_t n : sizes)
            {
                const std::int64_t cols = std::min<std::int64_t>(n, 1000);
                const std::int64_t rows = std::max<std::int64_t>(1, n / cols);
                const int reps = n > 1000000 ? 11 : n > 100000 ? 51 : 301;
                const double dnn = specula_of(c, rows, cols, false, opts, reps);
                const double ex = specula_of(c, rows, cols, true, opts, reps);
                const double np_s = numpy_of(c.numpy, rows, cols, reps);
                std::printf("%-16s %10lld %7lld %12.2f %12.2f %12.2f %7.2fx\n", c.name,
                            static_cast<long long>(rows * cols), static_cast<long long>(cols),
                            dnn * 1e6, ex * 1e6, np_s * 1e6, np_s / dnn);
            }
        }
    }
} // namespace specula::bench
