// The oneDNN float32 ops beyond matmul (fast target): eltwise, binary with
// post-ops, reductions. Each against a float64 evaluation of the same
// expression on the same float32 inputs (NumPy's float64 result, computed
// here), within the bounds of backends/cpu/README.md ("Tolerance policy"),
// and the exact path (NumPy's bytes, proven elsewhere) and the reference
// backend within the same bounds; exact mode builds nothing and keeps the
// exact path's bytes; small sizes stay exact; primitives are cached per
// shape; what oneDNN cannot take falls back with the exact path's bytes.

#include "onednn_test_support.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

#ifdef SPECULA_HAVE_ONEDNN

using namespace specula;
using namespace specula::backends;
using namespace specula::backends::cpu::testing;

namespace
{
    using ir::op;

    struct unary_case
    {
        op code;
        float lo, hi;
        double (*truth)(double);
        double ulps; // README bound for oneDNN
    };

    f32_case unary_graph(op code, std::vector<std::int64_t> shape)
    {
        return {{shape}, [code](ir::builder& b, const std::vector<ir::value_id>& a) {
                    b.output(b.unary(code, a[0]), "y");
                }};
    }

    ir::value_id f32c(ir::builder& b, double v)
    {
        return b.constant(ir::scalar::of_float(ir::dtype::float32, v));
    }

    // Every result (oneDNN, exact path, reference backend) within `ulps` of
    // the float64 truth; returns the oneDNN outcome.
    outcome expect_all_within(const f32_case& c, const std::vector<buffer>& in,
                              const std::vector<double>& truth, double ulps, const char* what)
    {
        outcome dnn = run_case(c, in, {});
        outcome exact = run_case(c, in, {.use_onednn = false});
        outcome ref = run_case(c, in, {.reference = true});
        EXPECT_EQ(dnn.onednn_kernels, 1) << what << ": oneDNN did not serve it";
        EXPECT_EQ(exact.onednn_kernels, 0) << what;
        for (const outcome* o : {&dnn, &exact, &ref})
        {
            if (o->outputs.size() != 1)
            {
                ADD_FAILURE() << what << ": no output";
                continue;
            }
            const double u = max_ulps(o->outputs[0], truth);
            EXPECT_LE(u, ulps) << what
                               << (o == &dnn     ? " (oneDNN)"
                                   : o == &exact ? " (exact)"
                                                 : " (reference)");
            if (o == &dnn)
            {
                std::printf("[ measured ] %s: oneDNN max error %.2f ulp\n", what, u);
            }
        }
        return dnn;
    }
} // namespace

TEST(cpu_onednn_ops, eltwise_within_ulps_of_float64)
{
    const std::vector<unary_case> cases = {
        {op::TANH, -6.f, 6.f, [](double x) { return std::tanh(x); }, 4},
        {op::SQRT, 0.f, 100.f, [](double x) { return std::sqrt(x); }, 1},
        {op::ABS, -5.f, 5.f, [](double x) { return std::fabs(x); }, 0},
        {op::NEG, -5.f, 5.f, [](double x) { return -x; }, 0},
        {op::SQUARE, -5.f, 5.f, [](double x) { return x * x; }, 0.5},
    };
    const std::vector<std::int64_t> shape = {48, 125}; // 6000 elements: above the crossover
    for (const unary_case& u : cases)
    {
        std::vector<buffer> in = {random_buffer(shape, 1, u.lo, u.hi)};
        std::vector<double> truth;
        for (std::int64_t i = 0; i < in[0].size(); ++i)
        {
            truth.push_back(u.truth(f32(in[0])[i]));
        }
        f32_case c = unary_graph(u.code, shape);
        // Lone cheap ops stay exact by selection: force oneDNN for them.
        outcome dnn = run_case(c, in, {.onednn_min_elements = 0});
        ASSERT_EQ(dnn.outputs.size(), 1u);
        EXPECT_EQ(dnn.onednn_kernels, 1) << ir::mnemonic(u.code);
        const double err = max_ulps(dnn.outputs[0], truth);
        std::printf("[ measured ] %s: oneDNN max error %.2f ulp\n",
                    std::string(ir::mnemonic(u.code)).c_str(), err);
        EXPECT_LE(err, u.ulps) << ir::mnemonic(u.code);
        outcome exact = run_case(c, in, {.use_onednn = false});
        outcome ref = run_case(c, in, {.reference = true});
        EXPECT_LE(max_ulps(exact.outputs[0], truth), u.ulps) << ir::mnemonic(u.code);
        EXPECT_LE(max_ulps(ref.outputs[0], truth), u.ulps) << ir::mnemonic(u.code);
    }
}

TEST(cpu_onednn_ops, transcendental_ops_take_onednn_by_selection)
{
    const std::vector<std::int64_t> shape = {64, 100};
    std::vector<buffer> in = {random_buffer(shape, 2, 0.f, 30.f)};
    std::vector<double> truth;
    for (std::int64_t i = 0; i < in[0].size(); ++i)
    {
        truth.push_back(std::sqrt(double(f32(in[0])[i])));
    }
    expect_all_within(unary_graph(op::SQRT, shape), in, truth, 1, "sqrt");
}

TEST(cpu_onednn_ops, logistic_is_one_primitive)
{
    const std::vector<std::int64_t> shape = {8192};
    f32_case c{{shape},
               [](ir::builder& b, const std::vector<ir::value_id>& a)
               {
                   auto e = b.unary(op::EXP, b.unary(op::NEG, a[0]));
                   b.output(b.binary(op::DIV, f32c(b, 1), b.binary(op::ADD, f32c(b, 1), e)), "y");
               }};
    std::vector<buffer> in = {random_buffer(shape, 3, -12.f, 12.f)};
    std::vector<double> truth;
    for (std::int64_t i = 0; i < in[0].size(); ++i)
    {
        truth.push_back(1.0 / (1.0 + std::exp(-double(f32(in[0])[i]))));
    }
    outcome dnn = expect_all_within(c, in, truth, 4, "logistic");
    outcome exact = run_case(c, in, {.use_onednn = false});
    EXPECT_EQ(dnn.scheduled, exact.scheduled); // one group node either way
}

TEST(cpu_onednn_ops, binary_chain_with_broadcast_post_ops)
{
    // tanh((x - col + row) * y) and (row - tanh(x)) * y: a binary primitive with
    // binary/eltwise post-ops, operands broadcast over rows (row) and a
    // scalar-per-row column (col, the head's second operand: oneDNN 2.6 has
    // JIT code for a column operand only there, not as a post-op).
    const std::int64_t r = 64, k = 96;
    std::vector<buffer> in = {random_buffer({r, k}, 4, -2.f, 2.f),
                              random_buffer({r, k}, 5, -2.f, 2.f), random_buffer({k}, 6, -1.f, 1.f),
                              random_buffer({r, 1}, 7, -1.f, 1.f)};
    f32_case first{{{r, k}, {r, k}, {k}, {r, 1}},
                   [](ir::builder& b, const std::vector<ir::value_id>& a)
                   {
                       auto t = b.binary(op::ADD, b.binary(op::SUB, a[0], a[3]), a[2]);
                       b.output(b.unary(op::TANH, b.binary(op::MUL, t, a[1])), "y");
                   }};
    f32_case second{{{r, k}, {r, k}, {k}, {r, 1}},
                    [](ir::builder& b, const std::vector<ir::value_id>& a)
                    {
                        auto t = b.binary(op::SUB, a[2], b.unary(op::TANH, a[0]));
                        b.output(b.binary(op::MUL, t, a[1]), "y");
                    }};
    const float *x = f32(in[0]), *y = f32(in[1]), *row = f32(in[2]), *col = f32(in[3]);
    for (int which = 0; which < 2; ++which)
    {
        // Below the chains' crossover: oneDNN forced.
        outcome dnn = run_case(which == 0 ? first : second, in, {.onednn_min_elements = 0});
        outcome exact = run_case(which == 0 ? first : second, in, {.use_onednn = false});
        outcome ref = run_case(which == 0 ? first : second, in, {.reference = true});
        ASSERT_EQ(dnn.outputs.size(), 1u);
        EXPECT_EQ(dnn.onednn_kernels, 1) << which;
        for (const outcome* o : {&dnn, &exact, &ref})
        {
            int bad = 0;
            for (std::int64_t i = 0; i < r; ++i)
            {
                for (std::int64_t j = 0; j < k; ++j)
                {
                    const std::int64_t e = i * k + j;
                    double t, mag;
                    if (which == 0)
                    {
                        const double d = double(x[e]) - col[i] + row[j];
                        t = std::tanh(d * y[e]);
                        mag = (std::fabs(x[e]) + std::fabs(col[i]) + std::fabs(row[j])) *
                              std::fabs(y[e]);
                    }
                    else
                    {
                        const double th = std::tanh(double(x[e]));
                        t = (row[j] - th) * y[e];
                        mag = (std::fabs(row[j]) + std::fabs(th)) * std::fabs(y[e]);
                    }
                    // README: 3 eps32 per rounded step relative to the terms'
                    // magnitude, plus 4 eps32 of the result for the transcendental.
                    const double bound = 3 * 3 * FLT_EPSILON * mag + 4 * FLT_EPSILON * std::fabs(t);
                    const double err = std::fabs(double(f32(o->outputs[0])[e]) - t);
                    if (!(err <= bound) && bad++ < 3)
                    {
                        ADD_FAILURE() << "chain " << which << " [" << i << "," << j
                                      << "]: " << f32(o->outputs[0])[e] << " vs " << t;
                    }
                }
            }
        }
    }
}

TEST(cpu_onednn_ops, reductions_within_tolerance)
{
    const std::int64_t r = 96, k = 700;
    std::vector<buffer> in = {random_buffer({r, k}, 8, -3.f, 3.f)};
    const float* x = f32(in[0]);
    for (op code : {op::SUM, op::MEAN, op::MAX, op::MIN})
    {
        f32_case c{{{r, k}}, [code](ir::builder& b, const std::vector<ir::value_id>& a) {
                       b.output(b.reduce(code, a[0], {1}, true), "y");
                   }};
        outcome dnn = run_case(c, in, {});
        outcome exact = run_case(c, in, {.use_onednn = false});
        outcome ref = run_case(c, in, {.reference = true});
        ASSERT_EQ(dnn.outputs.size(), 1u);
        if (code == op::MAX || code == op::MIN)
        {
            // Never on oneDNN (NaN, see nan_propagates_as_in_numpy): NumPy's bytes.
            EXPECT_EQ(dnn.onednn_kernels, 0) << ir::mnemonic(code);
            EXPECT_TRUE(same_bytes(dnn.outputs[0], exact.outputs[0])) << ir::mnemonic(code);
            continue;
        }
        EXPECT_EQ(dnn.onednn_kernels, 1) << ir::mnemonic(code);
        for (const outcome* o : {&dnn, &exact, &ref})
        {
            for (std::int64_t i = 0; i < r; ++i)
            {
                double s = 0, mag = 0;
                for (std::int64_t j = 0; j < k; ++j)
                {
                    s += x[i * k + j];
                    mag += std::fabs(x[i * k + j]);
                }
                const double div = code == op::MEAN ? double(k) : 1.0;
                // README: K eps32 sum|x| (+ eps32 |mean| for the division).
                const double bound =
                    (k * FLT_EPSILON * mag) / div + FLT_EPSILON * std::fabs(s / div);
                EXPECT_LE(std::fabs(double(f32(o->outputs[0])[i]) - s / div), bound)
                    << ir::mnemonic(code) << " row " << i;
            }
        }
    }
}

TEST(cpu_onednn_ops, exact_mode_builds_nothing_and_keeps_the_exact_bytes)
{
    const std::vector<std::int64_t> shape = {64, 128};
    std::vector<buffer> in = {random_buffer(shape, 9, -3.f, 3.f)};
    for (op code : {op::SQRT, op::TANH})
    {
        f32_case c = unary_graph(code, shape);
        outcome exact_mode = run_case(c, in, {.exact = true, .onednn_min_elements = 0});
        outcome plain = run_case(c, in, {.use_onednn = false});
        EXPECT_EQ(exact_mode.onednn_kernels, 0);
        EXPECT_EQ(exact_mode.primitives, 0);
        EXPECT_TRUE(same_bytes(exact_mode.outputs[0], plain.outputs[0]));
    }
    f32_case sum{{shape}, [](ir::builder& b, const std::vector<ir::value_id>& a) {
                     b.output(b.reduce(op::SUM, a[0], {1}), "y");
                 }};
    outcome exact_mode = run_case(sum, in, {.exact = true, .onednn_min_elements = 0});
    outcome plain = run_case(sum, in, {.use_onednn = false});
    EXPECT_EQ(exact_mode.onednn_kernels, 0);
    EXPECT_TRUE(same_bytes(exact_mode.outputs[0], plain.outputs[0]));
}

TEST(cpu_onednn_ops, small_sizes_stay_on_the_exact_path)
{
    const std::vector<std::int64_t> shape = {10, 10};
    std::vector<buffer> in = {random_buffer(shape, 10, -3.f, 3.f)};
    f32_case c = unary_graph(op::TANH, shape);
    outcome fast = run_case(c, in, {});
    outcome plain = run_case(c, in, {.use_onednn = false});
    EXPECT_EQ(fast.onednn_kernels, 0);
    EXPECT_TRUE(same_bytes(fast.outputs[0], plain.outputs[0]));
}

TEST(cpu_onednn_ops, second_compile_of_a_shape_builds_no_primitive)
{
    const std::vector<std::int64_t> shape = {77, 101};
    std::vector<buffer> in = {random_buffer(shape, 11, -3.f, 3.f)};
    f32_case c = unary_graph(op::TANH, shape);
    outcome first = run_case(c, in, {.onednn_min_elements = 0, .threads = 1});
    outcome second = run_case(c, in, {.onednn_min_elements = 0, .threads = 1});
    EXPECT_EQ(first.onednn_kernels, 1);
    EXPECT_EQ(first.primitives, 1);
    EXPECT_EQ(second.onednn_kernels, 1);
    EXPECT_EQ(second.primitives, 0);
    EXPECT_TRUE(same_bytes(first.outputs[0], second.outputs[0]));
}

TEST(cpu_onednn_ops, lanes_do_not_change_elementwise_results)
{
    // Rows split across the pool's lanes: elementwise, so bitwise the same.
    const std::vector<std::int64_t> shape = {256, 300};
    std::vector<buffer> in = {random_buffer(shape, 12, -3.f, 3.f)};
    f32_case c = unary_graph(op::TANH, shape);
    outcome one = run_case(c, in, {.onednn_min_elements = 0, .threads = 1});
    outcome two = run_case(c, in, {.onednn_min_elements = 0, .threads = 2});
    EXPECT_EQ(two.onednn_kernels, 1);
    EXPECT_TRUE(same_bytes(one.outputs[0], two.outputs[0]));
}

TEST(cpu_onednn_ops, what_onednn_cannot_take_falls_back)
{
    // o / v has no oneDNN form; a rank-7 operand is refused by our plan; a
    // mean over axis 0 and a column operand as a post-op have only oneDNN's
    // scalar reference implementation.
    const std::vector<std::int64_t> rank7 = {2, 2, 2, 2, 2, 16, 16};
    std::vector<f32_case> cases = {
        {{{64, 128}, {64, 128}},
         [](ir::builder& b, const std::vector<ir::value_id>& a)
         { b.output(b.binary(op::DIV, a[1], b.unary(op::TANH, a[0])), "y"); }},
        unary_graph(op::TANH, rank7),
        {{{256, 64}},
         [](ir::builder& b, const std::vector<ir::value_id>& a)
         { b.output(b.reduce(op::MEAN, a[0], {0}), "y"); }},
        {{{64, 128}, {64, 128}, {64, 1}},
         [](ir::builder& b, const std::vector<ir::value_id>& a)
         { b.output(b.binary(op::ADD, b.binary(op::MUL, a[0], a[1]), a[2]), "y"); }},
    };
    for (std::size_t i = 0; i < cases.size(); ++i)
    {
        std::vector<buffer> in;
        for (std::size_t j = 0; j < cases[i].inputs.size(); ++j)
        {
            in.push_back(random_buffer(cases[i].inputs[j], 13 + unsigned(j), 0.5f, 2.f));
        }
        outcome fast = run_case(cases[i], in, {.onednn_min_elements = 0});
        outcome plain = run_case(cases[i], in, {.use_onednn = false});
        ASSERT_EQ(fast.outputs.size(), 1u) << i;
        EXPECT_EQ(fast.onednn_kernels, 0) << i;
        EXPECT_TRUE(same_bytes(fast.outputs[0], plain.outputs[0])) << i;
    }
}

TEST(cpu_onednn_ops, nan_propagates_as_in_numpy)
{
    // NaN inputs give NaN where NumPy gives NaN. exp and the max/min forms
    // are never taken (oneDNN's exp and max drop NaN): the exact path's bytes.
    const std::vector<std::int64_t> shape = {64, 128};
    std::vector<buffer> in = {random_buffer(shape, 20, -2.f, 2.f),
                              random_buffer(shape, 21, -2.f, 2.f)};
    auto* x = reinterpret_cast<float*>(in[0].data());
    for (std::int64_t i = 0; i < in[0].size(); i += 97)
    {
        x[i] = std::nanf("");
    }
    auto unary_of = [](op code)
    {
        return f32_case{{{64, 128}, {64, 128}},
                        [code](ir::builder& b, const std::vector<ir::value_id>& a)
                        { b.output(b.unary(code, b.binary(op::MUL, a[0], a[1])), "y"); }};
    };
    std::vector<std::pair<const char*, f32_case>> taken = {
        {"tanh", unary_of(op::TANH)},
        {"sqrt", unary_of(op::SQRT)},
        {"logistic",
         {{shape, shape},
          [](ir::builder& b, const std::vector<ir::value_id>& a)
          {
              auto e = b.unary(op::EXP, b.unary(op::NEG, b.binary(op::MUL, a[0], a[1])));
              b.output(b.binary(op::DIV, f32c(b, 1), b.binary(op::ADD, f32c(b, 1), e)), "y");
          }}},
        {"sum", {{shape, shape}, [](ir::builder& b, const std::vector<ir::value_id>& a) {
                     b.output(b.reduce(op::SUM, a[0], {1}), "y");
                 }}}};
    std::vector<std::pair<const char*, f32_case>> refused = {
        {"exp", unary_of(op::EXP)},
        {"relu",
         {{shape, shape},
          [](ir::builder& b, const std::vector<ir::value_id>& a)
          { b.output(b.binary(op::MAXIMUM, b.binary(op::MUL, a[0], a[1]), f32c(b, 0)), "y"); }}},
        {"maximum",
         {{shape, shape},
          [](ir::builder& b, const std::vector<ir::value_id>& a)
          { b.output(b.binary(op::MAXIMUM, b.binary(op::MUL, a[0], a[1]), a[1]), "y"); }}},
        {"max()", {{shape, shape}, [](ir::builder& b, const std::vector<ir::value_id>& a) {
                       b.output(b.reduce(op::MAX, a[0], {1}), "y");
                   }}}};
    for (const auto& [name, c] : taken)
    {
        outcome dnn = run_case(c, in, {.onednn_min_elements = 0});
        outcome exact = run_case(c, in, {.use_onednn = false});
        ASSERT_EQ(dnn.outputs.size(), 1u) << name;
        EXPECT_EQ(dnn.onednn_kernels, 1) << name;
        const float* a = f32(dnn.outputs[0]);
        const float* e = f32(exact.outputs[0]);
        int differ = 0, nans = 0;
        for (std::int64_t i = 0; i < dnn.outputs[0].size(); ++i)
        {
            differ += std::isnan(a[i]) != std::isnan(e[i]);
            nans += std::isnan(e[i]);
        }
        EXPECT_GT(nans, 0) << name;
        EXPECT_EQ(differ, 0) << name;
    }
    for (const auto& [name, c] : refused)
    {
        outcome dnn = run_case(c, in, {.onednn_min_elements = 0});
        outcome exact = run_case(c, in, {.use_onednn = false});
        ASSERT_EQ(dnn.outputs.size(), 1u) << name;
        EXPECT_EQ(dnn.onednn_kernels, 0) << name;
        EXPECT_TRUE(same_bytes(dnn.outputs[0], exact.outputs[0])) << name;
    }
}

#endif
