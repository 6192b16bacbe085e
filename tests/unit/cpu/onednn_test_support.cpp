#include "onednn_test_support.hpp"

#include "ir/passes/fuse_elementwise.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#ifdef SPECULA_HAVE_ONEDNN
#include "backends/cpu/onednn/onednn_plan.hpp"
#endif

namespace specula::backends::cpu::testing
{
    namespace
    {
        std::int64_t kernels_made()
        {
#ifdef SPECULA_HAVE_ONEDNN
            return onednn::plan_kernels_made();
#else
            return 0;
#endif
        }
    } // namespace

    outcome run_case(const f32_case& c, const std::vector<buffer>& in, const run_options& o)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        std::vector<ir::value_id> args;
        for (std::size_t i = 0; i < c.inputs.size(); ++i)
        {
            args.push_back(b.input({ir::dtype::float32, ir::shape::of(c.inputs[i])},
                                   "in" + std::to_string(i)));
        }
        c.body(b, args);
        EXPECT_TRUE(b.ok()) << b.state().message();
        ir::fuse_elementwise(g);
        reference::reference_backend ref;
        cpu_options opts;
        opts.numpy_loops = numpy_table();
        opts.use_onednn = o.use_onednn;
        opts.onednn_min_elements = o.onednn_min_elements;
        opts.threads = o.threads;
        cpu_backend be(opts);
        target t;
        t.exact = o.exact;
        const std::int64_t k0 = kernels_made();
        const std::int64_t p0 = onednn_primitives_created();
        auto exe = o.reference ? ref.compile(g, t) : be.compile(g, t, &ref);
        EXPECT_TRUE(exe) << (exe ? "" : exe.error().to_string());
        if (!exe)
        {
            return {};
        }
        outcome out;
        out.onednn_kernels = kernels_made() - k0;
        out.primitives = onednn_primitives_created() - p0;
        run_result r = exe.value()->run(in);
        EXPECT_TRUE(r.state) << r.state.to_string();
        out.outputs = r.outputs;
        out.scheduled = exe.value()->main().m_regions[g.body()].size();
        return out;
    }

    buffer random_buffer(const std::vector<std::int64_t>& shape, unsigned seed, float lo, float hi)
    {
        auto b = buffer::allocate(ir::dtype::float32, shape).value();
        std::mt19937 gen(seed);
        std::uniform_real_distribution<float> d(lo, hi);
        auto* p = reinterpret_cast<float*>(b.data());
        for (std::int64_t i = 0; i < b.size(); ++i)
        {
            p[i] = d(gen);
        }
        return b;
    }

    const float* f32(const buffer& b)
    {
        return reinterpret_cast<const float*>(b.data());
    }

    double max_ulps(const buffer& got, const std::vector<double>& truth)
    {
        double worst = 0;
        const float* p = f32(got);
        for (std::size_t i = 0; i < truth.size(); ++i)
        {
            const float t = static_cast<float>(std::fabs(truth[i]));
            const double ulp =
                std::nextafter(t, std::numeric_limits<float>::infinity()) - double(t);
            const double e = std::fabs(double(p[i]) - truth[i]) / ulp;
            worst = std::isnan(e) ? std::numeric_limits<double>::infinity() : std::max(worst, e);
        }
        return worst;
    }

    bool same_bytes(const buffer& x, const buffer& y)
    {
        return x.size() == y.size() &&
               std::memcmp(x.data(), y.data(), static_cast<std::size_t>(x.size()) * 4) == 0;
    }
} // namespace specula::backends::cpu::testing
