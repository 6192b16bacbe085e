// `bench_cpu views`: movement ops as views against the same graphs with the
// copies they replaced (cpu_options::views off) and against NumPy, float64:
// transpose + matmul and gemv, and the heat stencil's shifted slices.

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
    using ir::slice_item;
    using views_body = std::function<void(ir::builder&, const std::vector<ir::value_id>&)>;

    namespace
    {
        double graph_seconds(const views_body& body,
                             const std::vector<std::vector<std::int64_t>>& shapes, bool views,
                             const cpu::cpu_options& base, int reps)
        {
            ir::module m;
            ir::graph& g = m.add_graph("main");
            ir::builder b(g);
            std::vector<ir::value_id> args;
            std::vector<buffer> ins;
            for (const auto& s : shapes)
            {
                args.push_back(b.input({ir::dtype::float64, ir::shape::of(s)}));
                ins.push_back(buffer::allocate(ir::dtype::float64, s).value());
            }
            body(b, args);
            ir::fuse_elementwise(g);
            cpu::cpu_options opts = base;
            opts.views = views;
            cpu::cpu_backend be(opts);
            reference::reference_backend ref;
            auto exe = be.compile(g, target{}, &ref);
            if (!exe)
            {
                return -1;
            }
            return median_seconds([&] { exe.value()->run(ins); }, reps);
        }

        double numpy_of(const std::string& setup, const std::string& stmt, int reps)
        {
            const std::string code = "import numpy as np, timeit\n" + setup +
                                     "\n_t=sorted(timeit.repeat(lambda: " + stmt +
                                     ", number=1, repeat=" + std::to_string(reps) +
                                     "))\n_m=_t[len(_t)//2]\n";
            PyRun_SimpleString(code.c_str());
            PyObject* main = PyImport_AddModule("__main__");  // borrowed
            PyObject* m = PyObject_GetAttrString(main, "_m"); // new
            const double v = PyFloat_AsDouble(m);
            Py_XDECREF(m);
            return v;
        }
    } // namespace

    void bench_views(const cpu::cpu_options& opts)
    {
        struct view_case
        {
            const char* name;
            std::vector<std::vector<std::int64_t>> shapes;
            const char* setup;
            const char* numpy;
            views_body body;
        };
        const auto r = slice_item::range(1, -1);
        const std::vector<view_case> cases = {
            {"A.T @ B 256x256",
             {{256, 256}, {256, 256}},
             "a=np.ones((256,256));b=np.ones((256,256))",
             "a.T @ b",
             [](ir::builder& b, const std::vector<ir::value_id>& x) {
                 b.output(b.matmul(b.transpose(x[0], {1, 0}), x[1]));
             }},
            {"A.T @ v 512x512",
             {{512, 512}, {512}},
             "a=np.ones((512,512));b=np.ones(512)",
             "a.T @ b",
             [](ir::builder& b, const std::vector<ir::value_id>& x) {
                 b.output(b.matmul(b.transpose(x[0], {1, 0}), x[1]));
             }},
            {"A @ A.T 256x128 (syrk)",
             {{256, 128}},
             "a=np.ones((256,128))",
             "a @ a.T",
             [](ir::builder& b, const std::vector<ir::value_id>& x) {
                 b.output(b.matmul(x[0], b.transpose(x[0], {1, 0})));
             }},
            {"heat stencil 1024^2",
             {{1024, 1024}},
             "u=np.ones((1024,1024))",
             "u[1:-1,1:-1] + 0.1*(u[2:,1:-1] + u[:-2,1:-1] + u[1:-1,2:] + u[1:-1,:-2] - "
             "4*u[1:-1,1:-1])",
             [r](ir::builder& b, const std::vector<ir::value_id>& x)
             {
                 auto s = [&](slice_item i, slice_item j) { return b.slice(x[0], {i, j}); };
                 auto c = s(r, r);
                 auto sum = b.binary(ir::op::ADD,
                                     b.binary(ir::op::ADD, s(slice_item::range(2, 1024), r),
                                              s(slice_item::range(0, -2), r)),
                                     b.binary(ir::op::ADD, s(r, slice_item::range(2, 1024)),
                                              s(r, slice_item::range(0, -2))));
                 auto four = b.constant(ir::scalar::of_float(ir::dtype::float64, 4.0));
                 auto lap = b.binary(ir::op::SUB, sum, b.binary(ir::op::MUL, four, c));
                 auto alpha = b.constant(ir::scalar::of_float(ir::dtype::float64, 0.1));
                 b.output(b.binary(ir::op::ADD, c, b.binary(ir::op::MUL, alpha, lap)));
             }},
        };
        std::printf("%-26s %12s %12s %12s %9s\n", "views case", "views_us", "copies_us", "numpy_us",
                    "vs numpy");
        for (const view_case& c : cases)
        {
            const double on = graph_seconds(c.body, c.shapes, true, opts, 101);
            const double off = graph_seconds(c.body, c.shapes, false, opts, 101);
            const double np_s = numpy_of(c.setup, c.numpy, 101);
            std::printf("%-26s %12.1f %12.1f %12.1f %8.2fx\n", c.name, on * 1e6, off * 1e6,
                        np_s * 1e6, np_s / on);
        }
    }
} // namespace specula::bench
