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

#endif
