// Core data structures: the op table, dtypes, shapes with symbols, attributes, graphs.
#include <gtest/gtest.h>

#include <set>

#include "ir/builder.hpp"
#include "ir/infer.hpp"
#include "ir/passes/passes.hpp"
#include "ir/printer.hpp"
#include "ir/verifier.hpp"

namespace
{
    using namespace specula::ir;

    TEST(core, op_table_is_consistent)
    {
        std::set<std::string_view> names;
        for (int i = 0; i < num_ops; ++i)
        {
            const op code = static_cast<op>(i);
            const op_info& oi = info(code);
            EXPECT_TRUE(names.insert(oi.mnemonic).second) << oi.mnemonic;
            EXPECT_EQ(op_from_mnemonic(oi.mnemonic), code);
            EXPECT_EQ(default_attr(code).index(), oi.attr_index) << oi.mnemonic;
            if (has(code, prop::UNARY))
            {
                EXPECT_EQ(oi.num_inputs, 1) << oi.mnemonic;
            }
            if (has(code, prop::BINARY))
            {
                EXPECT_EQ(oi.num_inputs, 2) << oi.mnemonic;
            }
            if (has(code, prop::ASSERT))
            {
                EXPECT_TRUE(has(code, prop::SIDE_EFFECT));
            }
        }
        EXPECT_GE(num_ops, 80);
        EXPECT_TRUE(has(op::ADD, prop::ELEMENTWISE | prop::BINARY | prop::COMMUTATIVE));
        EXPECT_FALSE(has(op::SUB, prop::COMMUTATIVE));
        EXPECT_TRUE(has(op::LOOP, prop::CONTROL_FLOW));
        EXPECT_TRUE(has(op::INPUT, prop::BOUNDARY));
        EXPECT_FALSE(op_from_mnemonic("no_such_op").has_value());
    }

    TEST(core, dtype_names_round_trip)
    {
        for (dtype t : all_dtypes)
        {
            EXPECT_EQ(dtype_from_name(dtype_name(t)), t);
            EXPECT_EQ(dtype_from_name(dtype_short_name(t)), t);
        }
        EXPECT_EQ(itemsize(dtype::int16), 2);
        EXPECT_TRUE(is_float(dtype::float32));
        EXPECT_FALSE(is_integer(dtype::bool_));
        EXPECT_FALSE(dtype_from_name("float16").has_value());
    }

    TEST(core, broadcasting_with_symbols)
    {
        const dim s0 = dim::symbol(0);
        const dim s1 = dim::symbol(1);
        auto r = broadcast_shapes(shape(std::vector<dim>{s0, dim::fixed(8)}), shape{8});
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(r->to_string(), "[?0,8]");
        r = broadcast_shapes(shape(std::vector<dim>{s0, dim::fixed(1)}), shape{1, 5});
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(r->to_string(), "[?0,5]");
        r = broadcast_shapes(shape(std::vector<dim>{s0}), shape{3});
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(r->to_string(), "[3]");
        EXPECT_FALSE(
            broadcast_shapes(shape(std::vector<dim>{s0}), shape(std::vector<dim>{s1})).ok());
        EXPECT_FALSE(broadcast_shapes(shape{2, 3}, shape{4, 3}).ok());
        EXPECT_EQ(broadcast_shapes(shape{}, shape{2, 1})->to_string(), "[2,1]");
    }

    TEST(core, shape_helpers)
    {
        const shape s{2, 3, 4};
        EXPECT_EQ(s.num_elements(), 24);
        EXPECT_EQ(*s.contiguous_strides(), (std::vector<std::int64_t>{12, 4, 1}));
        shape sym = s;
        sym[1] = dim::symbol(4);
        EXPECT_FALSE(sym.is_static());
        EXPECT_FALSE(sym.num_elements().has_value());
        EXPECT_EQ(sym.to_string(), "[2,?4,4]");
        EXPECT_EQ(normalize_axis(-1, 3), 2);
        EXPECT_FALSE(normalize_axis(3, 3).has_value());
    }

    TEST(core, constants_store_exact_values)
    {
        const auto c = constant_attr::from_values(dtype::uint8, shape{3},
                                                  {scalar::of_int(dtype::uint8, 255),
                                                   scalar::of_int(dtype::uint8, 0),
                                                   scalar::of_int(dtype::uint8, 7)});
        EXPECT_EQ(c.bytes.size(), 3u);
        EXPECT_EQ(c.element(0).ival, 255);
        const auto f = constant_attr::from_scalar(scalar::of_float(dtype::float32, 0.1f));
        EXPECT_EQ(f.element(0).fval, static_cast<double>(0.1f));
        EXPECT_EQ(scalar::of_float(dtype::float64, 0.1).to_string(), "0.1");
        EXPECT_EQ(scalar::of_float(dtype::float64, -0.0).to_string(), "-0.0");
        EXPECT_FALSE(scalar::of_float(dtype::float64, 0.0) ==
                     scalar::of_float(dtype::float64, -0.0));
    }

    TEST(core, module_move_keeps_callee_lookup)
    {
        module m;
        m.add_graph("f");
        module moved = std::move(m);
        EXPECT_EQ(moved.find("f")->parent_module(), &moved);
        EXPECT_EQ(moved.names(), std::vector<std::string>{"f"});
    }

    TEST(core, walk_visits_regions_in_pre_order)
    {
        graph g;
        builder b(g);
        const auto c = b.input({dtype::bool_, shape{}});
        const auto x = b.input({dtype::float64, shape{2}});
        const region_id t = b.new_region();
        const region_id e = b.new_region();
        {
            builder::insertion_guard guard(b);
            b.set_insertion_end(t);
            b.set_results(t, {b.unary(op::NEG, x)});
            b.set_insertion_end(e);
            b.set_results(e, {b.unary(op::ABS, x)});
        }
        b.output(b.if_else(c, t, e)[0]);
        std::vector<std::string> order;
        for (node_id n : g.walk())
        {
            order.emplace_back(mnemonic(g.get_node(n).code));
        }
        EXPECT_EQ(order,
                  (std::vector<std::string>{"input", "input", "if", "neg", "abs", "output"}));
        EXPECT_EQ(g.inputs().size(), 2u);
        EXPECT_EQ(g.outputs().size(), 1u);
        EXPECT_TRUE(g.is_ancestor_region(g.body(), t));
        EXPECT_FALSE(g.is_ancestor_region(t, e));
    }

    TEST(core, insertion_before_a_node)
    {
        graph g;
        builder b(g);
        const auto x = b.input({dtype::float64, shape{2}});
        const auto y = b.unary(op::NEG, x);
        b.output(y);
        b.set_insertion_before(g.get(y).def);
        const auto z = b.unary(op::EXP, x);
        EXPECT_EQ(g.position(g.get(z).def), 1u);
        EXPECT_TRUE(verify(g).empty());
    }

    TEST(core, inference_rules_for_symbolic_shapes)
    {
        graph g;
        builder b(g);
        const auto x = b.input(
            {dtype::float32, shape(std::vector<dim>{dim::symbol(g.new_symbol()), dim::fixed(8)})});
        const auto w = b.input({dtype::float32, shape{8, 16}});
        EXPECT_EQ(g.type_of(b.matmul(x, w)).to_string(), "f32[?0,16]");
        EXPECT_EQ(g.type_of(b.reshape(x, shape(std::vector<dim>{dim::symbol(0), dim::fixed(2),
                                                                dim::fixed(4)})))
                      .to_string(),
                  "f32[?0,2,4]");
        EXPECT_EQ(g.type_of(b.reduce(op::MEAN, x, {0}, true)).to_string(), "f32[1,8]");
        EXPECT_EQ(
            g.type_of(b.slice(x, {slice_item::all(), slice_item::range(0, 8, 2)})).to_string(),
            "f32[?0,4]");
        EXPECT_EQ(g.type_of(b.transpose(x, {1, 0})).to_string(), "f32[8,?0]");
        EXPECT_EQ(g.type_of(b.expand_dims(x, {-1})).to_string(), "f32[?0,8,1]");
        ASSERT_TRUE(b.ok()) << b.state().message();
        EXPECT_EQ(b.squeeze(x, {0}), no_id); // a symbolic dim may not be 1
    }

    // A stencil on a relaxed grid: interior slices drop the same number of elements
    // of one symbolic dim, so they share a symbol and broadcast together (W5).
    TEST(core, slices_trimming_a_symbol_share_it)
    {
        graph g;
        builder b(g);
        const auto s = dim::symbol(g.new_symbol());
        const auto u = b.input({dtype::float64, shape(std::vector<dim>{s, s})});
        auto from = [](std::int64_t start)
        {
            slice_item it = slice_item::all();
            it.has_start = true;
            it.start = start;
            return it;
        };
        auto until = [](std::int64_t stop)
        {
            slice_item it = slice_item::all();
            it.has_stop = true;
            it.stop = stop;
            return it;
        };
        const slice_item inner = slice_item::range(1, -1);
        const auto mid = b.slice(u, {inner, inner});
        const auto down = b.slice(u, {from(2), inner});
        const auto up = b.slice(u, {until(-2), inner});
        const auto right = b.slice(u, {inner, from(2)});
        EXPECT_EQ(g.type_of(mid).to_string(), "f64[?1,?1]");
        EXPECT_EQ(g.type_of(down), g.type_of(mid));
        EXPECT_EQ(g.type_of(up), g.type_of(mid));
        EXPECT_EQ(g.type_of(right), g.type_of(mid));
        const auto sum = b.binary(op::ADD, b.binary(op::ADD, down, up), right);
        ASSERT_TRUE(b.ok()) << b.state().message();
        EXPECT_EQ(g.type_of(sum), g.type_of(mid));
        // A slice of a slice adds the trims: u[1:-1][1:-1] is u[2:-2].
        const auto twice = b.slice(mid, {inner, inner});
        EXPECT_EQ(g.type_of(twice).dims[0],
                  g.type_of(b.slice(u, {slice_item::range(2, -2)})).dims[0]);
        EXPECT_EQ(g.type_of(twice).dims[0], g.type_of(b.slice(u, {from(4)})).dims[0]);
        // Not a trim: a count that is not `size - k` for every size.
        const auto tail = b.slice(u, {from(-3)});
        const auto head = b.slice(u, {slice_item::range(0, 5)});
        EXPECT_NE(g.type_of(tail).dims[0], g.type_of(mid).dims[0]);
        EXPECT_NE(g.type_of(head).dims[0], g.type_of(tail).dims[0]);
        EXPECT_NE(g.type_of(head).dims[0], s);
        // The interior update of a second grid of the same size.
        const auto u_new = b.input({dtype::float64, shape(std::vector<dim>{s, s})});
        b.output(b.slice_update(u_new, sum, {inner, inner}));
        ASSERT_TRUE(b.ok()) << b.state().message();
        EXPECT_TRUE(verify(g).empty()) << format(verify(g));
        // Re-inference keeps the symbols.
        const std::string before = g.type_of(sum).to_string();
        ASSERT_TRUE(infer_types(g));
        EXPECT_EQ(g.type_of(sum).to_string(), before);
        EXPECT_TRUE(verify(g).empty());
    }
} // namespace
