// The IR's dtype rules, slice normalisation and constant folding against NumPy's own
// answers (numpy_expected.txt, generated at build time by gen_numpy_expectations.py).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "ir/builder.hpp"
#include "ir/infer.hpp"
#include "ir/passes/fold_constants.hpp"

namespace
{
    using namespace specula::ir;

    std::vector<std::vector<std::string>> lines_of(const std::string& kind)
    {
        std::ifstream in(SPECULA_IR_NUMPY_EXPECTED);
        std::vector<std::vector<std::string>> out;
        std::string line;
        while (std::getline(in, line))
        {
            std::istringstream words(line);
            std::vector<std::string> w;
            for (std::string s; words >> s;)
            {
                w.push_back(s);
            }
            if (!w.empty() && w[0] == kind)
            {
                out.push_back(w);
            }
        }
        return out;
    }

    std::string name_or_unsupported(std::optional<dtype> t)
    {
        return t ? std::string(dtype_name(*t)) : "unsupported";
    }

    // NumPy's answer as the IR should give it: types outside the supported set (and
    // NumPy errors) become "unsupported".
    std::string expected_name(const std::string& numpy_name)
    {
        return dtype_from_name(numpy_name) ? numpy_name : "unsupported";
    }

    promotion_operand parse_operand(const std::string& spec)
    {
        const auto colon = spec.find(':');
        const std::string kind = spec.substr(0, colon);
        const std::string rest = spec.substr(colon + 1);
        if (kind == "arr")
        {
            return promotion_operand::array_of(*dtype_from_name(rest));
        }
        if (kind == "zd")
        {
            const auto c2 = rest.find(':');
            const dtype t = *dtype_from_name(rest.substr(0, c2));
            const std::string v = rest.substr(c2 + 1);
            return is_float(t) ? promotion_operand::zero_dim_float(t, std::stod(v))
                               : promotion_operand::zero_dim_int(t, std::stoll(v));
        }
        if (kind == "int")
        {
            return promotion_operand::py_int(std::stoll(rest));
        }
        if (kind == "float")
        {
            return promotion_operand::py_float(std::strtod(rest.c_str(), nullptr));
        }
        return promotion_operand::py_bool(rest == "1");
    }

    TEST(numpy, promote_types_matches)
    {
        const auto cases = lines_of("promote");
        ASSERT_EQ(cases.size(), 64u);
        for (const auto& w : cases)
        {
            EXPECT_EQ(dtype_name(promote_types(*dtype_from_name(w[1]), *dtype_from_name(w[2]))),
                      w[3])
                << w[1] << " " << w[2];
        }
    }

    TEST(numpy, value_based_result_type_matches)
    {
        const auto cases = lines_of("result_type");
        ASSERT_GT(cases.size(), 500u);
        for (const auto& w : cases)
        {
            const int n = std::stoi(w[1]);
            std::vector<promotion_operand> ops;
            std::string text;
            for (int i = 0; i < n; ++i)
            {
                ops.push_back(parse_operand(w[2 + static_cast<size_t>(i)]));
                text += w[2 + static_cast<size_t>(i)] + " ";
            }
            EXPECT_EQ(name_or_unsupported(result_type(ops)), expected_name(w.back())) << text;
        }
    }

    TEST(numpy, ufunc_result_dtypes_match)
    {
        const auto cases = lines_of("ufunc");
        ASSERT_GT(cases.size(), 1000u);
        for (const auto& w : cases)
        {
            const op code = *op_from_mnemonic(w[1]);
            const int n = std::stoi(w[2]);
            std::vector<dtype> in;
            for (int i = 0; i < n; ++i)
            {
                in.push_back(*dtype_from_name(w[3 + static_cast<size_t>(i)]));
            }
            EXPECT_EQ(name_or_unsupported(elementwise_dtype(code, in)), expected_name(w.back()))
                << w[1] << " " << w[3] << " " << (n > 1 ? w[4] : "");
        }
    }

    TEST(numpy, reduction_dtypes_match)
    {
        for (const auto& w : lines_of("reduce"))
        {
            EXPECT_EQ(name_or_unsupported(
                          reduction_dtype(*op_from_mnemonic(w[1]), *dtype_from_name(w[2]))),
                      expected_name(w[3]))
                << w[1] << " " << w[2];
        }
    }

    TEST(numpy, slice_normalisation_matches_python)
    {
        const auto cases = lines_of("slice");
        ASSERT_GT(cases.size(), 1000u);
        for (const auto& w : cases)
        {
            slice_item it;
            it.has_start = w[2] != "_";
            it.has_stop = w[3] != "_";
            it.start = it.has_start ? std::stoll(w[2]) : 0;
            it.stop = it.has_stop ? std::stoll(w[3]) : 0;
            it.step = std::stoll(w[4]);
            const slice_range r = normalize_slice(it, std::stoll(w[1]));
            EXPECT_EQ(r.count, std::stoll(w[5])) << it.to_string() << " of " << w[1];
            if (r.count > 0)
            {
                EXPECT_EQ(r.start, std::stoll(w[6])) << it.to_string() << " of " << w[1];
            }
        }
    }

    scalar parse_value(dtype t, const std::string& text)
    {
        if (t == dtype::float32)
        {
            const auto bits = static_cast<std::uint32_t>(std::stoull(text, nullptr, 16));
            float f;
            std::memcpy(&f, &bits, sizeof f);
            return scalar::of_float(t, f);
        }
        if (t == dtype::float64)
        {
            const std::uint64_t bits = std::stoull(text, nullptr, 16);
            double d;
            std::memcpy(&d, &bits, sizeof d);
            return scalar::of_float(t, d);
        }
        if (t == dtype::bool_)
        {
            return scalar::of_bool(text == "1");
        }
        return scalar::of_int(t, std::stoll(text));
    }

    std::string value_text(const scalar& s)
    {
        char buf[32];
        if (s.elem == dtype::float32)
        {
            const float f = static_cast<float>(s.fval);
            std::uint32_t bits;
            std::memcpy(&bits, &f, sizeof bits);
            std::snprintf(buf, sizeof buf, "0x%x", bits);
            return buf;
        }
        if (s.elem == dtype::float64)
        {
            std::uint64_t bits;
            std::memcpy(&bits, &s.fval, sizeof bits);
            std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(bits));
            return buf;
        }
        return std::to_string(s.ival);
    }

    value_id constant_input(builder& b, const std::string& spec)
    {
        const auto colon = spec.find(':');
        const dtype t = *dtype_from_name(spec.substr(0, colon));
        const scalar s = parse_value(t, spec.substr(colon + 1));
        return b.constant(constant_attr::from_values(t, shape{1}, {s}));
    }

    TEST(numpy, folded_values_are_bit_identical)
    {
        const auto cases = lines_of("fold");
        ASSERT_GT(cases.size(), 1000u);
        int folded = 0;
        for (const auto& w : cases)
        {
            graph g;
            builder b(g);
            const int n = std::stoi(w[2]);
            std::vector<value_id> ins;
            for (int i = 0; i < n; ++i)
            {
                ins.push_back(constant_input(b, w[3 + static_cast<size_t>(i)]));
            }
            const op code = *op_from_mnemonic(w[1]);
            const value_id r = n == 1 ? b.unary(code, ins[0]) : b.binary(code, ins[0], ins[1]);
            const std::string where = w[1] + " " + w[3] + (n > 1 ? " " + w[4] : "");
            if (!b.ok())
            {
                EXPECT_TRUE(w.back() == "noresult" ||
                            expected_name(w.back().substr(0, w.back().find(':'))) == "unsupported")
                    << where << ": " << b.state().message();
                continue;
            }
            b.output(r);
            fold_constants(g);
            const value_id out = g.get_node(g.outputs()[0]).inputs[0];
            const node& def = g.get_node(g.get(out).def);
            if (def.code != op::CONSTANT)
            {
                continue; // not folded: always allowed
            }
            ++folded;
            ASSERT_NE(w.back(), "noresult") << where << " was folded but NumPy warns or fails";
            const scalar got = def.attr_as<constant_attr>().element(0);
            EXPECT_EQ(std::string(dtype_name(got.elem)) + ":" + value_text(got), w.back()) << where;
        }
        EXPECT_GT(folded, 1000);
    }
} // namespace
