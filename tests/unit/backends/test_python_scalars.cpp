// Array-vs-Python-scalar binary ops lowered as the converter must lower them
// (ir::builder::python_scalar: a 0-d constant in the dtype NumPy 1.24's
// value-based casting picks), run on the reference backend, against NumPy's
// results for every binary op family (gen_scalar_oracle.py).

#include "backends/reference/reference_backend.hpp"
#include "graph_program.hpp"
#include "ir/builder.hpp"
#include "oracle_reader.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace
{
    using namespace specula;
    using namespace specula::backends;
    using namespace specula::backends::testing;

    // The Python scalar a 0-d oracle array stands for (its dtype is its kind).
    ir::promotion_operand python_scalar(oracle_array& a)
    {
        switch (a.type)
        {
        case reference::scalar::b1:
            return ir::promotion_operand::py_bool(*a.data() != std::byte{0});
        case reference::scalar::i64:
        {
            std::int64_t v = 0;
            std::memcpy(&v, a.data(), sizeof v);
            return ir::promotion_operand::py_int(v);
        }
        default:
        {
            double v = 0;
            std::memcpy(&v, a.data(), sizeof v);
            return ir::promotion_operand::py_float(v);
        }
        }
    }

    // Empty when the lowered graph gives NumPy's answer (or refuses exactly
    // where NumPy leaves the IR's dtypes or raises).
    std::string check(oracle_case& c)
    {
        const auto code = ir::op_from_mnemonic(c.op);
        if (!code)
        {
            return "unknown op " + c.op;
        }
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        buffer x = to_buffer(c.inputs[0]);
        auto in = b.input({x.dtype(), ir::shape::of(x.shape())}, "x");
        auto s = b.python_scalar(*code, python_scalar(c.inputs[1]), in);
        b.output(c.params[0] == 0 ? b.binary(*code, in, s) : b.binary(*code, s, in), "r");
        if (!b.ok())
        {
            return c.expected ? "IR refused: " + b.state().message() : "";
        }
        reference::reference_backend ref;
        auto exe = ref.compile(g, target{});
        if (!exe)
        {
            return "compile: " + exe.error().to_string();
        }
        run_result r = exe.value()->run({x});
        if (!c.expected)
        {
            return r.state ? "NumPy refuses, the graph ran" : "";
        }
        if (!r.state)
        {
            return "run: " + r.state.to_string();
        }
        oracle_array got = from_buffer(r.outputs[0]);
        if (got.type != c.expected->type)
        {
            return "dtype differs from NumPy's";
        }
        return compare(c.tolerance, got, *c.expected, nullptr, 1);
    }
} // namespace

TEST(python_scalars, every_binary_op_matches_numpy_value_based_casting)
{
    std::string error;
    auto cases = read_cases(SPECULA_SCALAR_ORACLE, error);
    ASSERT_TRUE(error.empty()) << error;
    int failed = 0;
    for (auto& c : cases)
    {
        std::string problem = check(c);
        if (!problem.empty() && ++failed <= 25)
        {
            ADD_FAILURE() << c.op << " side " << c.params[0] << " line " << c.line << ": "
                          << problem;
        }
    }
    EXPECT_GT(cases.size(), 1000u);
    EXPECT_EQ(failed, 0) << failed << " of " << cases.size() << " cases differ from NumPy";
}

// The case the reference README warns about, spelled out: float32 compare.
TEST(python_scalars, float32_array_against_python_float_compares_in_float32)
{
    ir::module m;
    ir::graph& g = m.add_graph("main");
    ir::builder b(g);
    auto x = b.input({ir::dtype::float32, ir::shape{1}}, "x");
    auto s = b.python_scalar(ir::op::LT, ir::promotion_operand::py_float(0.1), x);
    b.output(b.binary(ir::op::LT, x, s), "r");
    ASSERT_TRUE(b.ok()) << b.state().message();
    EXPECT_EQ(g.type_of(s).elem, ir::dtype::float32);
    // 0.1f == float32(0.1) is not < float32(0.1), but 0.1f < 0.1 in float64.
    const float tenth = 0.1f;
    reference::reference_backend ref;
    auto r = ref.compile(g, target{})
                 .value()
                 ->run({buffer::borrow(const_cast<float*>(&tenth), ir::dtype::float32, {1})});
    ASSERT_TRUE(r.state) << r.state.to_string();
    EXPECT_EQ(r.outputs[0].element_as_int(0), 0);
}

TEST(python_scalars, zero_dim_operand_needs_its_value)
{
    ir::module m;
    ir::graph& g = m.add_graph("main");
    ir::builder b(g);
    auto x = b.input({ir::dtype::int8, ir::shape{}}, "x");
    b.python_scalar(ir::op::ADD, ir::promotion_operand::py_int(3), x);
    EXPECT_FALSE(b.ok());
}
