// The oneDNN float32 path (fast target): matmul -> bias -> relu/tanh fused as
// one primitive, within the tolerance documented in backends/cpu/README.md,
// against a float64 evaluation and against the exact path (which other tests
// prove bit-identical to NumPy); exact mode never uses oneDNN; primitives are
// cached per shape; oneDNN's "unimplemented" is an answer, not a crash.

#include "cpu_test_support.hpp"

#include "backends/reference/reference_backend.hpp"
#include "ir/builder.hpp"
#include "ir/passes/fuse_elementwise.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>

#ifdef SPECULA_HAVE_ONEDNN
#include "backends/cpu/onednn/onednn_matmul.hpp"
#endif

using namespace specula;
using namespace specula::backends;

namespace
{
    enum class act
    {
        none,
        relu,
        tanh
    };

    struct problem
    {
        std::int64_t m, k, n;
        act activation;
    };

    buffer random_f32(std::vector<std::int64_t> shape, unsigned seed)
    {
        auto b = buffer::allocate(ir::dtype::float32, std::move(shape));
        std::mt19937 gen(seed);
        std::uniform_real_distribution<float> d(-1.f, 1.f);
        auto* p = reinterpret_cast<float*>(b->data());
        for (std::int64_t i = 0; i < b->size(); ++i)
        {
            p[i] = d(gen);
        }
        return b.value();
    }

    // np.maximum(A @ W + b, 0) / np.tanh(A @ W + b) / A @ W + b, as the converter builds it.
    void build(ir::graph& g, const problem& p)
    {
        ir::builder b(g);
        auto a = b.input({ir::dtype::float32, ir::shape{p.m, p.k}}, "a");
        auto w = b.input({ir::dtype::float32, ir::shape{p.k, p.n}}, "w");
        auto bias = b.input({ir::dtype::float32, ir::shape{p.n}}, "b");
        auto y = b.binary(ir::op::ADD, b.matmul(a, w), bias);
        if (p.activation == act::relu)
        {
            y = b.binary(ir::op::MAXIMUM, y,
                         b.constant(ir::scalar::of_float(ir::dtype::float32, 0.0)));
        }
        else if (p.activation == act::tanh)
        {
            y = b.unary(ir::op::TANH, y);
        }
        b.output(y, "y");
        ASSERT_TRUE(b.ok()) << b.state().message();
        ir::fuse_elementwise(g);
    }

    struct outcome
    {
        std::vector<buffer> outputs;
        std::size_t scheduled = 0; // nodes in the main schedule
    };

    outcome run(const problem& p, bool exact, bool use_onednn, const std::vector<buffer>& in)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        build(g, p);
        cpu::cpu_options opts;
        opts.numpy_loops = cpu::testing::numpy_table();
        opts.use_onednn = use_onednn;
        cpu::cpu_backend be(opts);
        target t;
        t.exact = exact;
        reference::reference_backend ref; // CONSTANT, as in the engine
        auto exe = be.compile(g, t, &ref);
        EXPECT_TRUE(exe) << (exe ? "" : exe.error().to_string());
        if (!exe)
        {
            return {};
        }
        run_result r = exe.value()->run(in);
        EXPECT_TRUE(r.state) << r.state.to_string();
        return {r.outputs, exe.value()->main().m_regions[g.body()].size()};
    }

    // The README's bound: |y - y64| <= 2 k eps32 sum_k |a_ik w_kj| + 4 eps32 |y64|,
    // y64 the float64 evaluation of the same expression on the same inputs.
    void expect_within_tolerance(const problem& p, const std::vector<buffer>& in, const buffer& y)
    {
        const auto* a = reinterpret_cast<const float*>(in[0].data());
        const auto* w = reinterpret_cast<const float*>(in[1].data());
        const auto* bias = reinterpret_cast<const float*>(in[2].data());
        const auto* got = reinterpret_cast<const float*>(y.data());
        const double eps = FLT_EPSILON;
        int bad = 0;
        for (std::int64_t i = 0; i < p.m; ++i)
        {
            for (std::int64_t j = 0; j < p.n; ++j)
            {
                double acc = 0, mag = 0;
                for (std::int64_t k = 0; k < p.k; ++k)
                {
                    const double t = double(a[i * p.k + k]) * double(w[k * p.n + j]);
                    acc += t;
                    mag += std::fabs(t);
                }
                double ref = acc + bias[j];
                ref = p.activation == act::relu   ? std::max(ref, 0.0)
                      : p.activation == act::tanh ? std::tanh(ref)
                                                  : ref;
                const double bound = 2 * double(p.k) * eps * mag + 4 * eps * std::fabs(ref);
                const double err = std::fabs(double(got[i * p.n + j]) - ref);
                if (!(err <= bound) && bad++ < 5)
                {
                    ADD_FAILURE() << "y[" << i << "," << j << "] = " << got[i * p.n + j]
                                  << ", float64 " << ref << ", error " << err << " > " << bound;
                }
            }
        }
        EXPECT_EQ(bad, 0);
    }

    bool same_bytes(const buffer& x, const buffer& y)
    {
        return x.size() == y.size() &&
               std::memcmp(x.data(), y.data(), static_cast<std::size_t>(x.size()) * 4) == 0;
    }
} // namespace

#ifdef SPECULA_HAVE_ONEDNN

TEST(cpu_onednn, gemm_bias_activation_within_tolerance)
{
    for (act a : {act::none, act::relu, act::tanh})
    {
        const problem p{96, 128, 80, a};
        std::vector<buffer> in = {random_f32({p.m, p.k}, 1), random_f32({p.k, p.n}, 2),
                                  random_f32({p.n}, 3)};
        outcome fast = run(p, false, true, in);
        outcome exact = run(p, false, false, in);
        ASSERT_EQ(fast.outputs.size(), 1u);
        ASSERT_EQ(exact.outputs.size(), 1u);
        // One node for matmul, bias and activation (inputs + output + it).
        EXPECT_LT(fast.scheduled, exact.scheduled) << "activation " << int(a);
        expect_within_tolerance(p, in, fast.outputs[0]);
        expect_within_tolerance(p, in, exact.outputs[0]);
    }
}

TEST(cpu_onednn, exact_mode_never_takes_onednn)
{
    const problem p{96, 128, 80, act::relu};
    std::vector<buffer> in = {random_f32({p.m, p.k}, 4), random_f32({p.k, p.n}, 5),
                              random_f32({p.n}, 6)};
    const std::int64_t before = cpu::onednn_primitives_created();
    outcome exact_mode = run(p, true, true, in);
    outcome no_onednn = run(p, false, false, in);
    EXPECT_EQ(cpu::onednn_primitives_created(), before);
    ASSERT_EQ(exact_mode.outputs.size(), 1u);
    EXPECT_TRUE(same_bytes(exact_mode.outputs[0], no_onednn.outputs[0]));
}

TEST(cpu_onednn, second_compile_of_a_shape_builds_no_primitive)
{
    const problem p{72, 112, 64, act::tanh};
    std::vector<buffer> in = {random_f32({p.m, p.k}, 7), random_f32({p.k, p.n}, 8),
                              random_f32({p.n}, 9)};
    const std::int64_t before = cpu::onednn_primitives_created();
    outcome first = run(p, false, true, in);
    const std::int64_t after_first = cpu::onednn_primitives_created();
    outcome second = run(p, false, true, in);
    EXPECT_EQ(after_first, before + 1);
    EXPECT_EQ(cpu::onednn_primitives_created(), after_first);
    ASSERT_EQ(second.outputs.size(), 1u);
    EXPECT_TRUE(same_bytes(first.outputs[0], second.outputs[0]));
}

TEST(cpu_onednn, small_products_stay_on_the_exact_path)
{
    const problem p{8, 8, 8, act::relu};
    std::vector<buffer> in = {random_f32({p.m, p.k}, 10), random_f32({p.k, p.n}, 11),
                              random_f32({p.n}, 12)};
    const std::int64_t before = cpu::onednn_primitives_created();
    outcome fast = run(p, false, true, in);
    outcome plain = run(p, false, false, in);
    EXPECT_EQ(cpu::onednn_primitives_created(), before);
    ASSERT_EQ(fast.outputs.size(), 1u);
    EXPECT_TRUE(same_bytes(fast.outputs[0], plain.outputs[0]));
}

// np.maximum(A @ W + b, 0) keeps a NaN of the product: so must the fused
// kernel (oneDNN's relu post-op would turn it into 0).
TEST(cpu_onednn, relu_keeps_nan_like_numpy)
{
    const problem p{96, 128, 80, act::relu};
    std::vector<buffer> in = {random_f32({p.m, p.k}, 13), random_f32({p.k, p.n}, 14),
                              random_f32({p.n}, 15)};
    reinterpret_cast<float*>(in[0].data())[5 * p.k + 3] = std::nanf(""); // row 5 all NaN
    outcome fast = run(p, false, true, in);
    outcome exact = run(p, false, false, in);
    ASSERT_EQ(fast.outputs.size(), 1u);
    EXPECT_LT(fast.scheduled, exact.scheduled); // still one oneDNN node
    const auto* a = reinterpret_cast<const float*>(fast.outputs[0].data());
    const auto* e = reinterpret_cast<const float*>(exact.outputs[0].data());
    int nans = 0;
    for (std::int64_t i = 0; i < p.m * p.n; ++i)
    {
        EXPECT_EQ(std::isnan(a[i]), std::isnan(e[i])) << i;
        nans += std::isnan(e[i]);
    }
    EXPECT_EQ(nans, p.n);
}

// oneDNN 2.6 has no float16 matmul on this CPU (no AVX512-FP16): its
// "unimplemented" must come back as status unimplemented (the backend's cue to
// take the exact path), never as an exception or a crash.
TEST(cpu_onednn, unimplemented_is_an_answer)
{
    cpu::onednn::matmul_spec spec;
    spec.m = spec.k = spec.n = 64;
    spec.elem = dnnl::memory::data_type::f16;
    auto prim = cpu::onednn::matmul_primitive(spec);
    ASSERT_FALSE(prim);
    EXPECT_EQ(prim.error().code(), status_code::unimplemented) << prim.error().to_string();
}

#endif
