// Softmax and normalisation patterns on oneDNN (fast target): recognised in
// the graph as NumPy code writes them, run as one primitive, within the
// README's bounds of a float64 evaluation; rows holding NaN or inf give
// NumPy's result; exact mode builds nothing and keeps the exact bytes.

#include "onednn_test_support.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>

#ifdef SPECULA_HAVE_ONEDNN

using namespace specula;
using namespace specula::backends;
using namespace specula::backends::cpu::testing;

namespace
{
    using ir::op;

    // e = np.exp(x - x.max(axis=-1, keepdims=True)); e / e.sum(axis=-1, keepdims=True)
    f32_case softmax_graph(std::vector<std::int64_t> shape)
    {
        return {{shape},
                [rank = int(shape.size())](ir::builder& b, const std::vector<ir::value_id>& a)
                {
                    auto m = b.reduce(op::MAX, a[0], {rank - 1}, true);
                    auto e = b.unary(op::EXP, b.binary(op::SUB, a[0], m));
                    b.output(b.binary(op::DIV, e, b.reduce(op::SUM, e, {rank - 1}, true)), "y");
                }};
    }

    std::vector<double> softmax64(const buffer& x, std::int64_t rows, std::int64_t cols)
    {
        std::vector<double> y(static_cast<std::size_t>(rows * cols));
        const float* p = f32(x);
        for (std::int64_t i = 0; i < rows; ++i)
        {
            double m = -std::numeric_limits<double>::infinity();
            for (std::int64_t j = 0; j < cols; ++j)
            {
                m = std::isnan(p[i * cols + j]) || std::isnan(m)
                        ? NAN
                        : std::max(m, double(p[i * cols + j]));
            }
            double s = 0;
            for (std::int64_t j = 0; j < cols; ++j)
            {
                s += y[i * cols + j] = std::exp(double(p[i * cols + j]) - m);
            }
            for (std::int64_t j = 0; j < cols; ++j)
            {
                y[i * cols + j] /= s;
            }
        }
        return y;
    }

    // README: |y - y64| <= (K + 8) eps32 |y64| for softmax over K elements.
    void expect_softmax_within(const buffer& y, const std::vector<double>& truth, std::int64_t k,
                               const char* what)
    {
        int bad = 0;
        for (std::size_t i = 0; i < truth.size(); ++i)
        {
            const double got = f32(y)[i];
            const bool ok = std::isnan(truth[i])
                                ? std::isnan(got)
                                : std::fabs(got - truth[i]) <=
                                      (double(k) + 8) * FLT_EPSILON * std::fabs(truth[i]);
            if (!ok && bad++ < 3)
            {
                ADD_FAILURE() << what << " [" << i << "] = " << got << ", float64 " << truth[i];
            }
        }
    }
} // namespace

TEST(cpu_onednn_norm, softmax_is_one_primitive_within_tolerance)
{
    const std::int64_t rows = 64, cols = 1000;
    std::vector<buffer> in = {random_buffer({rows, cols}, 30, -8.f, 8.f)};
    const f32_case c = softmax_graph({rows, cols});
    outcome dnn = run_case(c, in, {});
    outcome exact = run_case(c, in, {.use_onednn = false});
    outcome ref = run_case(c, in, {.reference = true});
    ASSERT_EQ(dnn.outputs.size(), 1u);
    EXPECT_EQ(dnn.onednn_kernels, 1);
    EXPECT_LT(dnn.scheduled, exact.scheduled); // five nodes became one
    const auto truth = softmax64(in[0], rows, cols);
    expect_softmax_within(dnn.outputs[0], truth, cols, "oneDNN");
    expect_softmax_within(exact.outputs[0], truth, cols, "exact");
    expect_softmax_within(ref.outputs[0], truth, cols, "reference");
}

TEST(cpu_onednn_norm, softmax_rows_with_nan_or_inf_match_numpy)
{
    const std::int64_t rows = 16, cols = 300;
    std::vector<buffer> in = {random_buffer({rows, cols}, 31, -4.f, 4.f)};
    auto* x = reinterpret_cast<float*>(in[0].data());
    const float inf = std::numeric_limits<float>::infinity();
    x[1 * cols + 7] = std::nanf(""); // NumPy: the whole row NaN
    x[3 * cols + 9] = inf;           // inf - inf: the whole row NaN
    x[5 * cols + 2] = -inf;          // exp(-inf) = 0: a finite row
    for (std::int64_t j = 0; j < cols; ++j)
    {
        x[7 * cols + j] = -inf; // -inf - -inf: the whole row NaN
    }
    const f32_case c = softmax_graph({rows, cols});
    outcome dnn = run_case(c, in, {.onednn_min_elements = 0});
    ASSERT_EQ(dnn.outputs.size(), 1u);
    EXPECT_EQ(dnn.onednn_kernels, 1);
    expect_softmax_within(dnn.outputs[0], softmax64(in[0], rows, cols), cols, "oneDNN");
}

TEST(cpu_onednn_norm, softmax_exact_mode_and_small_sizes_keep_the_exact_bytes)
{
    for (std::int64_t cols : {1000, 10})
    {
        // One row of 100 on oneDNN (forced): served, within tolerance.
        std::vector<buffer> one = {random_buffer({1, 100}, 34, -4.f, 4.f)};
        outcome forced = run_case(softmax_graph({1, 100}), one, {.onednn_min_elements = 0});
        EXPECT_EQ(forced.onednn_kernels, 1);
        expect_softmax_within(forced.outputs[0], softmax64(one[0], 1, 100), 100, "one row");
        std::vector<buffer> in = {random_buffer({8, cols}, 32, -4.f, 4.f)};
        const f32_case c = softmax_graph({8, cols});
        outcome exact_mode = run_case(c, in, {.exact = true, .onednn_min_elements = 0});
        outcome fast = run_case(c, in, {});
        outcome plain = run_case(c, in, {.use_onednn = false});
        EXPECT_EQ(exact_mode.onednn_kernels, 0);
        EXPECT_EQ(exact_mode.primitives, 0);
        EXPECT_TRUE(same_bytes(exact_mode.outputs[0], plain.outputs[0]));
        if (cols == 10) // 80 elements: below the crossover
        {
            EXPECT_EQ(fast.onednn_kernels, 0);
            EXPECT_TRUE(same_bytes(fast.outputs[0], plain.outputs[0]));
        }
    }
}

TEST(cpu_onednn_norm, softmax_over_another_axis_is_not_matched)
{
    // max/sum over axis 0: not oneDNN's softmax form here; the exact path's bytes.
    std::vector<buffer> in = {random_buffer({300, 40}, 33, -4.f, 4.f)};
    f32_case c{{{300, 40}},
               [](ir::builder& b, const std::vector<ir::value_id>& a)
               {
                   auto e = b.unary(op::EXP,
                                    b.binary(op::SUB, a[0], b.reduce(op::MAX, a[0], {0}, true)));
                   b.output(b.binary(op::DIV, e, b.reduce(op::SUM, e, {0}, true)), "y");
               }};
    outcome fast = run_case(c, in, {});
    outcome plain = run_case(c, in, {.use_onednn = false});
    EXPECT_EQ(fast.onednn_kernels, 0);
    EXPECT_TRUE(same_bytes(fast.outputs[0], plain.outputs[0]));
}

namespace
{
    // (x - mu) / np.sqrt(var + eps) [* gamma] [+ beta] over `axis` of [rows, cols].
    f32_case norm_graph(std::int64_t rows, std::int64_t cols, int axis, bool gamma, bool beta)
    {
        return {{{rows, cols}, {cols}, {cols}},
                [=](ir::builder& b, const std::vector<ir::value_id>& a)
                {
                    auto mu = b.reduce(op::MEAN, a[0], {axis}, true);
                    auto var = b.reduce(op::VAR, a[0], {axis}, true);
                    auto eps = b.constant(ir::scalar::of_float(ir::dtype::float32, 1e-5));
                    auto y = b.binary(op::DIV, b.binary(op::SUB, a[0], mu),
                                      b.unary(op::SQRT, b.binary(op::ADD, var, eps)));
                    if (gamma)
                    {
                        y = b.binary(op::MUL, y, a[1]);
                    }
                    if (beta)
                    {
                        y = b.binary(op::ADD, y, a[2]);
                    }
                    b.output(y, "y");
                }};
    }

    // README: |y - y64| <= (K + 8) eps32 (|gamma| (|z64| + 1) + |beta|), z64 the
    // normalised value, K the reduced count.
    void expect_norm_within(const buffer& y, const std::vector<buffer>& in, std::int64_t rows,
                            std::int64_t cols, int axis, bool gamma, bool beta, const char* what)
    {
        const float* x = f32(in[0]);
        const float* g = f32(in[1]);
        const float* bt = f32(in[2]);
        const std::int64_t k = axis == 0 ? rows : cols;
        int bad = 0;
        for (std::int64_t i = 0; i < rows; ++i)
        {
            for (std::int64_t j = 0; j < cols; ++j)
            {
                double mu = 0, var = 0;
                for (std::int64_t t = 0; t < k; ++t)
                {
                    mu += axis == 0 ? x[t * cols + j] : x[i * cols + t];
                }
                mu /= double(k);
                for (std::int64_t t = 0; t < k; ++t)
                {
                    const double d = (axis == 0 ? x[t * cols + j] : x[i * cols + t]) - mu;
                    var += d * d;
                }
                var /= double(k);
                const double z = (x[i * cols + j] - mu) / std::sqrt(var + double(1e-5f));
                const double gg = gamma ? g[j] : 1.0, bb = beta ? bt[j] : 0.0;
                const double t = z * gg + bb;
                const double bound = (double(k) + 8) * FLT_EPSILON *
                                     (std::fabs(gg) * (std::fabs(z) + 1) + std::fabs(bb));
                const double got = f32(y)[i * cols + j];
                if (!(std::fabs(got - t) <= bound) && bad++ < 3)
                {
                    ADD_FAILURE() << what << " [" << i << "," << j << "] = " << got << ", float64 "
                                  << t;
                }
            }
        }
    }
} // namespace

TEST(cpu_onednn_norm, layer_and_batch_norm_are_one_primitive_within_tolerance)
{
    const std::int64_t rows = 96, cols = 384;
    std::vector<buffer> in = {random_buffer({rows, cols}, 40, -2.f, 3.f),
                              random_buffer({cols}, 41, 0.5f, 1.5f),
                              random_buffer({cols}, 42, -1.f, 1.f)};
    for (int axis : {1, 0})
    {
        for (auto [gamma, beta] :
             {std::pair{true, true}, {false, false}, {true, false}, {false, true}})
        {
            const f32_case c = norm_graph(rows, cols, axis, gamma, beta);
            outcome dnn = run_case(c, in, {.onednn_min_elements = 0});
            outcome exact = run_case(c, in, {.use_onednn = false});
            outcome ref = run_case(c, in, {.reference = true});
            ASSERT_EQ(dnn.outputs.size(), 1u);
            EXPECT_EQ(dnn.onednn_kernels, 1) << axis << gamma << beta;
            EXPECT_LT(dnn.scheduled, exact.scheduled) << axis << gamma << beta;
            expect_norm_within(dnn.outputs[0], in, rows, cols, axis, gamma, beta, "oneDNN");
            expect_norm_within(exact.outputs[0], in, rows, cols, axis, gamma, beta, "exact");
            expect_norm_within(ref.outputs[0], in, rows, cols, axis, gamma, beta, "reference");
        }
    }
}

TEST(cpu_onednn_norm, selection_takes_layer_norm_and_leaves_batch_norm_exact)
{
    const std::int64_t rows = 64, cols = 256; // 16K elements
    std::vector<buffer> in = {random_buffer({rows, cols}, 49, -2.f, 3.f),
                              random_buffer({cols}, 50, 0.5f, 1.5f),
                              random_buffer({cols}, 51, -1.f, 1.f)};
    outcome layer = run_case(norm_graph(rows, cols, 1, true, true), in, {});
    EXPECT_EQ(layer.onednn_kernels, 1);
    outcome batch = run_case(norm_graph(rows, cols, 0, true, true), in, {});
    outcome plain = run_case(norm_graph(rows, cols, 0, true, true), in, {.use_onednn = false});
    EXPECT_EQ(batch.onednn_kernels, 0);
    EXPECT_TRUE(same_bytes(batch.outputs[0], plain.outputs[0]));
}

TEST(cpu_onednn_norm, layer_norm_exact_mode_keeps_the_exact_bytes)
{
    const std::int64_t rows = 64, cols = 256;
    std::vector<buffer> in = {random_buffer({rows, cols}, 43, -2.f, 3.f),
                              random_buffer({cols}, 44, 0.5f, 1.5f),
                              random_buffer({cols}, 45, -1.f, 1.f)};
    const f32_case c = norm_graph(rows, cols, 1, true, true);
    outcome exact_mode = run_case(c, in, {.exact = true, .onednn_min_elements = 0});
    outcome plain = run_case(c, in, {.use_onednn = false});
    EXPECT_EQ(exact_mode.onednn_kernels, 0);
    EXPECT_EQ(exact_mode.primitives, 0);
    EXPECT_TRUE(same_bytes(exact_mode.outputs[0], plain.outputs[0]));
}

TEST(cpu_onednn_norm, layer_norm_lanes_do_not_change_the_result)
{
    // Rows are independent: split across lanes, bitwise the same.
    const std::int64_t rows = 256, cols = 300;
    std::vector<buffer> in = {random_buffer({rows, cols}, 46, -2.f, 3.f),
                              random_buffer({cols}, 47, 0.5f, 1.5f),
                              random_buffer({cols}, 48, -1.f, 1.f)};
    const f32_case c = norm_graph(rows, cols, 1, true, true);
    outcome one = run_case(c, in, {.onednn_min_elements = 0, .threads = 1});
    outcome two = run_case(c, in, {.onednn_min_elements = 0, .threads = 2});
    EXPECT_EQ(two.onednn_kernels, 1);
    EXPECT_TRUE(same_bytes(one.outputs[0], two.outputs[0]));
}

#endif
