// Every reference kernel x dtype x shape case against NumPy's own answer,
// generated at build time by gen_kernel_oracle.py.

#include "backends/reference/elementwise.hpp"
#include "backends/reference/indexing.hpp"
#include "backends/reference/linalg.hpp"
#include "backends/reference/movement.hpp"
#include "backends/reference/reduce.hpp"
#include "oracle_reader.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>

namespace
{
    using namespace specula::backends;
    using namespace specula::backends::reference;
    using testing_case = specula::backends::testing::oracle_case;
    using specula::backends::testing::oracle_array;

    const std::vector<testing_case>& all_cases()
    {
        static const std::vector<testing_case> cases = []
        {
            std::string error;
            auto c = specula::backends::testing::read_cases(SPECULA_KERNEL_ORACLE, error);
            if (!error.empty())
            {
                ADD_FAILURE() << error;
            }
            return c;
        }();
        return cases;
    }

    // Runs one case into `out`, which has the expected dtype and shape.
    using runner = std::function<status(testing_case&, oracle_array& out)>;

    status run_slice(testing_case& c, oracle_array& out)
    {
        std::vector<slice_pick> items;
        for (std::size_t i = 0; i + 3 < c.params.size(); i += 4)
        {
            slice_pick p;
            p.what = static_cast<slice_pick::kind>(c.params[i]);
            p.start = c.params[i + 1];
            p.step = c.params[i + 2];
            p.count = c.params[i + 3];
            items.push_back(p);
        }
        strided_view v;
        if (!slice_view(c.inputs[0].view(), items.data(), static_cast<int>(items.size()), v))
        {
            return status::invalid("slice");
        }
        return run_cast(v, out.view());
    }

    status run_linalg(testing_case& c, oracle_array& out)
    {
        auto a = c.inputs[0].view();
        auto b = c.inputs[1].view();
        if (c.op == "matmul")
        {
            return run_matmul(a, b, out.view());
        }
        if (c.op == "dot")
        {
            return run_dot(a, b, out.view());
        }
        return run_outer(a, b, out.view());
    }

    template <class F>
    status run_many(testing_case& c, oracle_array& out, F&& f)
    {
        std::vector<strided_view> views;
        for (auto& a : c.inputs)
        {
            views.push_back(a.view());
        }
        return f(views.data(), static_cast<int>(views.size()), static_cast<int>(c.params[0]),
                 out.view());
    }

    const std::map<std::string, runner>& runners()
    {
        static const std::map<std::string, runner> table = {
            {"unary", [](testing_case& c, oracle_array& out)
             { return run_unary(*unary_op_from_name(c.op), c.inputs[0].view(), out.view()); }},
            {"binary",
             [](testing_case& c, oracle_array& out)
             {
                 return run_binary(*binary_op_from_name(c.op), c.inputs[0].view(),
                                   c.inputs[1].view(), out.view());
             }},
            {"where",
             [](testing_case& c, oracle_array& out) {
                 return run_where(c.inputs[0].view(), c.inputs[1].view(), c.inputs[2].view(),
                                  out.view());
             }},
            {"cast", [](testing_case& c, oracle_array& out)
             { return run_cast(c.inputs[0].view(), out.view()); }},
            {"reduce",
             [](testing_case& c, oracle_array& out)
             {
                 reduce_spec spec{*reduce_op_from_name(c.op),
                                  static_cast<std::uint32_t>(c.params[0]), c.params[1]};
                 return run_reduce(spec, c.inputs[0].view(), out.view());
             }},
            {"linalg", run_linalg},
            {"slice", run_slice},
            {"transpose",
             [](testing_case& c, oracle_array& out)
             {
                 std::vector<int> perm(c.params.begin(), c.params.end());
                 strided_view v;
                 transpose_view(c.inputs[0].view(), perm.data(), static_cast<int>(perm.size()), v);
                 return run_cast(v, out.view());
             }},
            {"reshape", [](testing_case& c, oracle_array& out)
             { return run_copy_flat(c.inputs[0].view(), out.view()); }},
            {"concatenate",
             [](testing_case& c, oracle_array& out) { return run_many(c, out, run_concatenate); }},
            {"stack",
             [](testing_case& c, oracle_array& out) { return run_many(c, out, run_stack); }},
            {"take",
             [](testing_case& c, oracle_array& out)
             {
                 return run_take(c.inputs[0].view(), c.inputs[1].view(),
                                 static_cast<int>(c.params[0]), out.view());
             }},
            {"take_update",
             [](testing_case& c, oracle_array& out)
             {
                 return run_take_update(c.inputs[0].view(), c.inputs[1].view(), c.inputs[2].view(),
                                        static_cast<int>(c.params[0]), out.view());
             }},
            {"mask_select", [](testing_case& c, oracle_array& out)
             { return run_mask_select(c.inputs[0].view(), c.inputs[1].view(), out.view()); }},
            {"mask_update",
             [](testing_case& c, oracle_array& out)
             {
                 return run_mask_update(c.inputs[0].view(), c.inputs[1].view(), c.inputs[2].view(),
                                        out.view());
             }},
        };
        return table;
    }

    std::int64_t depth_of(const testing_case& c)
    {
        const auto& a = c.inputs[0].shape;
        return a.empty() ? 1 : a.back();
    }

    // Runs every case of one kind; reports each mismatch (up to a limit).
    void check_kind(const std::string& kind)
    {
        int ran = 0;
        int failed = 0;
        for (const auto& original : all_cases())
        {
            if (original.kind != kind)
            {
                continue;
            }
            testing_case c = original;
            ++ran;
            oracle_array out = c.expected ? oracle_array::zeros(c.expected->type, c.expected->shape)
                                          : oracle_array::zeros(scalar::i64, {64});
            const status st = runners().at(kind)(c, out);
            std::string problem;
            if (!c.expected)
            {
                problem = st.is_ok() ? "expected an error value, got ok" : "";
            }
            else if (!st.is_ok())
            {
                problem = st.to_string();
            }
            else
            {
                oracle_array* bound = c.inputs.size() > 2 ? &c.inputs[2] : nullptr;
                problem = specula::backends::testing::compare(c.tolerance, out, *c.expected, bound,
                                                              depth_of(c));
            }
            if (!problem.empty() && ++failed <= 25)
            {
                ADD_FAILURE() << kind << " " << c.op << " (case line " << c.line << ", "
                              << scalar_name(c.inputs[0].type) << "): " << problem;
            }
        }
        EXPECT_GT(ran, 0) << "no " << kind << " cases generated";
        EXPECT_EQ(failed, 0) << failed << " of " << ran << " " << kind << " cases differ";
    }
} // namespace

TEST(reference_kernels, unary)
{
    check_kind("unary");
}
TEST(reference_kernels, binary)
{
    check_kind("binary");
}
TEST(reference_kernels, where)
{
    check_kind("where");
}
TEST(reference_kernels, cast)
{
    check_kind("cast");
}
TEST(reference_kernels, reduce)
{
    check_kind("reduce");
}
TEST(reference_kernels, linalg)
{
    check_kind("linalg");
}
TEST(reference_kernels, slice)
{
    check_kind("slice");
}
TEST(reference_kernels, transpose)
{
    check_kind("transpose");
}
TEST(reference_kernels, reshape)
{
    check_kind("reshape");
}
TEST(reference_kernels, concatenate)
{
    check_kind("concatenate");
}
TEST(reference_kernels, stack)
{
    check_kind("stack");
}
TEST(reference_kernels, take)
{
    check_kind("take");
}
TEST(reference_kernels, take_update)
{
    check_kind("take_update");
}
TEST(reference_kernels, mask_select)
{
    check_kind("mask_select");
}
TEST(reference_kernels, mask_update)
{
    check_kind("mask_update");
}
